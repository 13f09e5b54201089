#!/usr/bin/env bash
# Build the VS Code extension package (.vsix) with @vscode/vsce from the lock file,
# then check that the package holds the grammar, the client and its runtime library.
#   editors/vscode/build.sh            -> editors/vscode/lablang-<version>.vsix
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  npm ci --no-audit --no-fund
fi
version=$(node -p "require('./package.json').version")
out="lablang-${version}.vsix"
npx --no-install vsce package --allow-missing-repository --out "$out"
# A .vsix is a zip; the grammar, client and language client library must be inside.
python3 - "$out" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
needed = [
    "extension/package.json",
    "extension/syntaxes/lablang.tmLanguage.json",
    "extension/language-configuration.json",
    "extension/snippets/lablang.code-snippets",
    "extension/client/extension.js",
    "extension/node_modules/vscode-languageclient/node.js",
]
missing = [n for n in needed if n not in names]
if missing:
    sys.exit(f"error: {sys.argv[1]} lacks {', '.join(missing)}")
print(f"{sys.argv[1]}: {len(names)} files, grammar and client present")
PY

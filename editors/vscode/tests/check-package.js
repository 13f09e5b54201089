#!/usr/bin/env node
// Checks that the extension manifest points at files that exist and parse, and that
// there is a snippet for every declaration kind of grammar/lablang.lark.
'use strict';
const fs = require('fs');
const path = require('path');
const assert = require('assert');

const root = path.join(__dirname, '..');
const read = (p) => fs.readFileSync(path.join(root, p), 'utf8');
const manifest = JSON.parse(read('package.json'));

const [language] = manifest.contributes.languages;
assert.deepStrictEqual(language.extensions, ['.lab']);
JSON.parse(read(language.configuration));

const [grammar] = manifest.contributes.grammars;
const tm = JSON.parse(read(grammar.path));
assert.strictEqual(tm.scopeName, grammar.scopeName);

assert.ok(fs.existsSync(path.join(root, manifest.main)), `${manifest.main} is missing`);

// Every `#name` a rule includes must be defined in the repository.
const includes = JSON.stringify(tm).match(/"include":"#[A-Za-z-]+"/g) || [];
for (const inc of includes) {
  const name = inc.slice('"include":"#'.length, -1);
  assert.ok(tm.repository[name], `grammar includes undefined rule #${name}`);
}

const lark = fs.readFileSync(path.join(root, '..', '..', 'grammar', 'lablang.lark'), 'utf8');
const declRule = lark.match(/^!decl_kind:([\s\S]*?)\n(?=\S)/m)[1];
const kinds = [...declRule.matchAll(/"([a-z]+)"/g)].map((m) => m[1]);
assert.ok(kinds.length >= 13, 'could not read the declaration kinds from the grammar');
const snippets = JSON.parse(read(manifest.contributes.snippets[0].path));
const prefixes = new Set(Object.values(snippets).map((s) => s.prefix));
for (const kind of kinds) {
  assert.ok(prefixes.has(kind), `no snippet for declaration kind \`${kind}\``);
}
console.log(`✓ manifest, language configuration and ${prefixes.size} snippets (all ${kinds.length} declaration kinds)`);

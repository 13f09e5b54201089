#!/usr/bin/env node
// Print the TextMate scopes of every token of a .lab file, one line per token:
//   node tests/show-tokens.js FILE
// A helper for writing the annotated samples in tests/*.test.lab.
'use strict';
const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

async function main() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async () => {
      const file = path.join(__dirname, '..', 'syntaxes', 'lablang.tmLanguage.json');
      return vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
  });
  const grammar = await registry.loadGrammar('source.lablang');
  const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n');
  let stack = vsctm.INITIAL;
  lines.forEach((line, n) => {
    const result = grammar.tokenizeLine(line, stack);
    for (const t of result.tokens) {
      const text = line.slice(t.startIndex, t.endIndex);
      if (!text.trim()) continue;
      console.log(`${n + 1}:${t.startIndex} ${JSON.stringify(text)} ${t.scopes.slice(1).join(' ')}`);
    }
    stack = result.ruleStack;
  });
}
main();

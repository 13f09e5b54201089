// The lablang language client: starts `lablang lsp` over stdio and restarts it when
// its settings change. All language features live in the server (lablang/lsp).
'use strict';
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function serverOptions() {
  const config = vscode.workspace.getConfiguration('lablang');
  const command = config.get('server.path') || 'lablang';
  const args = ['lsp', ...(config.get('server.args') || [])];
  return { command, args, transport: TransportKind.stdio };
}

async function start(context) {
  client = new LanguageClient(
    'lablang',
    'lablang language server',
    serverOptions(),
    {
      documentSelector: [{ language: 'lablang' }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.lab') },
    },
  );
  try {
    await client.start();
  } catch (err) {
    vscode.window.showErrorMessage(
      `lablang: could not start \`${serverOptions().command} lsp\` (${err.message}). ` +
        'Install lablang or set `lablang.server.path`.',
    );
  }
}

async function stop() {
  if (client) {
    const running = client;
    client = undefined;
    await running.stop();
  }
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('lablang.restartServer', async () => {
      await stop();
      await start(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('lablang.server')) {
        await stop();
        await start(context);
      }
    }),
  );
  await start(context);
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };

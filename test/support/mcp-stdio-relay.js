// Stands between an MCP client and a stdio server (argv: log file, then the server's command):
// writes the server's pid, then each line the client sends, to the log file, and ends when the
// server ends — so a test can kill the real server once it has a call, and see what it was sent.
const { spawn } = require('node:child_process');
const { appendFileSync } = require('node:fs');
const readline = require('node:readline');

const [logFile, command, ...args] = process.argv.slice(2);
const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
appendFileSync(logFile, `${JSON.stringify({ pid: server.pid })}\n`);
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  appendFileSync(logFile, `${line}\n`);
  server.stdin.write(`${line}\n`);
});
server.stdout.pipe(process.stdout);
server.on('exit', () => process.exit(0));

// Counts the tokens of each request part that `scripts/bench --outline` wrote
// (DIR/GOAL.PROVIDER.PART.txt) and prints one row per request: each part in the tokenizer of
// its provider (OpenAI: o200k_base; Anthropic: its published Claude tokenizer, which is older
// than today's models and so an estimate), then the whole body.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens } from '@anthropic-ai/tokenizer';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node count.js DIR');
  process.exit(2);
}
const count = { openai: (t) => encode(t).length, anthropic: (t) => countTokens(t) };
const rows = new Map();
for (const file of readdirSync(dir).sort()) {
  const m = file.match(/^(.+)\.(openai|anthropic)\.(system|schema|user|whole)\.txt$/);
  if (!m) continue;
  const [, goal, provider, part] = m;
  const key = `${goal} | ${provider}`;
  if (!rows.has(key)) rows.set(key, {});
  rows.get(key)[part] = count[provider](readFileSync(join(dir, file), 'utf8'));
}
console.log('| goal | provider | system | schema | user (outline) | whole request |');
console.log('|---|---|---|---|---|---|');
const wholes = { openai: [], anthropic: [] };
for (const [key, r] of rows) {
  console.log(`| ${key} | ${r.system} | ${r.schema} | ${r.user} | ${r.whole} |`);
  wholes[key.split(' | ')[1]].push(r.whole);
}
for (const [provider, w] of Object.entries(wholes)) {
  if (!w.length) continue;
  w.sort((a, b) => a - b);
  console.log(`${provider}: whole request ${w[0]}–${w[w.length - 1]} tokens, median ${w[Math.floor(w.length / 2)]}`);
}

// Counts the tokens of what the agent bench's agent read (fixtures/journeys/agent): the tool
// list it loaded, and per goal the text of every `look` answer, in both providers'
// tokenizers (OpenAI: o200k_base; Anthropic: its published Claude tokenizer, older than
// today's models and so an estimate). Reads DIR/.harness/tools_list.txt and
// DIR/.harness/transcripts/*.jsonl; writes DIR/.harness/tokens.json for the judge.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens } from '@anthropic-ai/tokenizer';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node agent.js BENCH_DIR');
  process.exit(2);
}
const harness = join(dir, '.harness');
const count = (t) => ({ openai: encode(t).length, anthropic: countTokens(t) });
const out = { tools: null, looks: {} };
const tools = join(harness, 'tools_list.txt');
if (existsSync(tools)) out.tools = count(readFileSync(tools, 'utf8'));
const transcripts = join(harness, 'transcripts');
for (const file of existsSync(transcripts) ? readdirSync(transcripts).sort() : []) {
  if (!file.endsWith('.jsonl') || file.startsWith('_')) continue;
  const looks = readFileSync(join(transcripts, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((l) => l.kind === 'call' && l.tool === 'look')
    .map((l) => (l.answer && l.answer.text) || '');
  const sum = { openai: 0, anthropic: 0 };
  for (const text of looks) {
    const c = count(text);
    sum.openai += c.openai;
    sum.anthropic += c.anthropic;
  }
  out.looks[file.replace(/\.jsonl$/, '')] = sum;
}
writeFileSync(join(harness, 'tokens.json'), JSON.stringify(out, null, 2) + '\n');
console.log(`tokens: tool list ${JSON.stringify(out.tools)}; looks of ${Object.keys(out.looks).length} goals`);

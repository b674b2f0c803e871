// The JavaScript side of fit.gguf_crosscheck: @huggingface/gguf (npm), a GGUF reader written
// apart from wiredcap's, reads one local file and prints as JSON what `wiredcap fit` rests on:
// its metadata (numbers and strings; arrays by length) and its tensor table, each tensor's bytes
// as the file lays them out (from its offset to the next one's, the last to the file's end).
// Usage: node read_gguf.mjs NODE_MODULES FILE
import { statSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [modules, file] = process.argv.slice(2);
const { gguf } = await import(pathToFileURL(join(modules, "@huggingface/gguf/dist/index.mjs")).href);
const { metadata, tensorInfos, tensorDataOffset } = await gguf(file, { allowLocalFile: true });
const offsets = tensorInfos.map((t) => t.offset).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const end = BigInt(statSync(file).size) - tensorDataOffset;
let bytes = 0n;
for (let i = 0; i < offsets.length; ++i) bytes += (i + 1 < offsets.length ? offsets[i + 1] : end) - offsets[i];
const plain = {};
for (const [k, v] of Object.entries(metadata))
  plain[k] = Array.isArray(v) ? { length: v.length } : typeof v === "bigint" ? Number(v) : v;
console.log(JSON.stringify({ metadata: plain, tensors: tensorInfos.length, tensor_bytes: bytes.toString() }));

// The JavaScript side of bench/fit_speed.sh: @huggingface/gguf (npm) reads one local GGUF's
// metadata and tensor table, and the tensors' data bytes are summed (each tensor's extent from
// its offset to the next one's, the last to the file's end, as wiredcap counts them).
// Usage: node gguf_reader.mjs MODULE_DIR FILE
import { statSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [moduleDir, file] = process.argv.slice(2);
const { gguf } = await import(pathToFileURL(join(moduleDir, "@huggingface/gguf/dist/index.mjs")).href);
const { metadata, tensorInfos, tensorDataOffset } = await gguf(file, { allowLocalFile: true });
const offsets = tensorInfos.map((t) => t.offset).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const end = BigInt(statSync(file).size) - tensorDataOffset;
let bytes = 0n;
for (let i = 0; i < offsets.length; ++i) bytes += (i + 1 < offsets.length ? offsets[i + 1] : end) - offsets[i];
console.log(`${metadata["general.architecture"]}: ${tensorInfos.length} tensors, ${bytes} B`);

// Reads an MCAP file with @mcap/core (the reader Foxglove's tools are built on) and
// prints what tests/scripts/test_export_mcap.sh checks, as one JSON object: the
// channels with their schemas, the statistics, the messages counted per channel by
// reading every chunk (CRCs checked), the first and last message of "samples", and the
// same file read again linearly with the stream reader.
//   node tests/browser/read_mcap.mjs FILE.mcap
import { readFile } from "node:fs/promises";
import { McapIndexedReader, McapStreamReader } from "@mcap/core";
import { decompress } from "fzstd";

const decompressHandlers = { zstd: (data, size) => decompress(data, new Uint8Array(Number(size))) };
const bytes = await readFile(process.argv[2]);
const readable = {
  size: async () => BigInt(bytes.length),
  read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
};
const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
const channels = {};
for (const [id, ch] of reader.channelsById) {
  const schema = reader.schemasById.get(ch.schemaId);
  channels[ch.topic] = { id, encoding: ch.messageEncoding, schema: schema?.name, schemaEncoding: schema?.encoding,
                         schemaTypes: schema ? Object.keys(JSON.parse(new TextDecoder().decode(schema.data)).properties ?? {}).length : 0 };
}
const counted = {};
let first = null, last = null, lastTime = -1n, ordered = true;
for await (const m of reader.readMessages({ validateCrcs: true })) {
  const topic = reader.channelsById.get(m.channelId).topic;
  counted[topic] = (counted[topic] ?? 0) + 1;
  if (m.logTime < lastTime) ordered = false;
  lastTime = m.logTime;
  if (topic === "samples") {
    const s = JSON.parse(new TextDecoder().decode(m.data));
    if (!first) first = { logTime: String(m.logTime), ...s };
    last = { logTime: String(m.logTime), ...s };
  }
}
const stream = new McapStreamReader({ decompressHandlers, validateCrcs: true });
stream.append(bytes);
let streamed = 0, dataEnd = false, footer = false;
for (let r; (r = stream.nextRecord()); ) {
  if (r.type === "Message") streamed++;
  if (r.type === "DataEnd") dataEnd = true;
  if (r.type === "Footer") footer = true;
}
const st = reader.statistics;
console.log(JSON.stringify({
  channels, counted, ordered, first, last, streamed, dataEnd, footer,
  chunks: reader.chunkIndexes.length,
  compression: [...new Set(reader.chunkIndexes.map((c) => c.compression))],
  statistics: st && { messages: Number(st.messageCount), channels: st.channelCount, chunks: st.chunkCount,
                      perChannel: Object.fromEntries([...st.channelMessageCounts].map(([id, n]) => [reader.channelsById.get(id).topic, Number(n)])) },
}));

// Owner: indexer (services/indexer). Impostor contracts for the acceptance tests: a contract that
// emits the platform's event signatures from its own address.

/** A 0x-prefixed hex string. */
type HexText = `0x${string}`;

/**
 * Creation code of a contract that emits `logs` (each: up to 4 topics, data a whole number of
 * 32-byte words) from its constructor and has no code: an impostor emitting the platform's event
 * signatures from its own address. Send it as a contract creation (`data`, no `to`).
 */
export function emitterInitCode(logs: { topics: HexText[]; data: HexText }[]): HexText {
  let code = "";
  const push32 = (word: string) => `7f${word.padStart(64, "0")}`;
  for (const log of logs) {
    const data = log.data.slice(2);
    const words = data.length / 64;
    for (let i = 0; i < words; i++)
      code += `${push32(data.slice(i * 64, (i + 1) * 64))}61${(i * 32).toString(16).padStart(4, "0")}52`;
    for (const topic of [...log.topics].reverse()) code += push32(topic.slice(2));
    code += `61${(words * 32).toString(16).padStart(4, "0")}6000${(0xa0 + log.topics.length).toString(16)}`;
  }
  return `0x${code}00`;
}

/** `address` (or any short hex) left-padded to a 32-byte topic, lowercase. */
export function topicOf(address: string): HexText {
  return `0x${address.slice(2).toLowerCase().padStart(64, "0")}`;
}

/** Deterministic PRNG (mulberry32): same seed, same sequence. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Exponential with the given mean (Poisson inter-arrival times). */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /**
   * Log-normal amount in wei around `medianEth`, clamped to [minEth, maxEth]
   * (trade sizes: many small trades, a few large ones).
   */
  ethAmount(medianEth: number, sigma: number, minEth: number, maxEth: number): bigint {
    const eth = Math.min(maxEth, Math.max(minEth, medianEth * Math.exp(sigma * this.normal())));
    return BigInt(Math.round(eth * 1e6)) * 10n ** 12n;
  }

  /** Fraction of `amount` in [minFraction, maxFraction] (bigint-safe). */
  fraction(amount: bigint, minFraction: number, maxFraction: number): bigint {
    const parts = BigInt(Math.round(this.range(minFraction, maxFraction) * 1_000_000));
    return (amount * parts) / 1_000_000n;
  }
}

const ADJECTIVES = [
  "Moon",
  "Based",
  "Giga",
  "Tiny",
  "Happy",
  "Sleepy",
  "Turbo",
  "Cosmic",
  "Golden",
  "Silent",
  "Electric",
  "Lucky",
  "Wild",
  "Frozen",
  "Pixel",
  "Quantum",
  "Rusty",
  "Shiny",
  "Brave",
  "Lazy",
];
const NOUNS = [
  "Cat",
  "Dog",
  "Frog",
  "Pepe",
  "Whale",
  "Rocket",
  "Panda",
  "Toad",
  "Otter",
  "Llama",
  "Duck",
  "Shiba",
  "Hamster",
  "Dragon",
  "Goose",
  "Bear",
  "Bull",
  "Ape",
  "Penguin",
  "Koala",
];

/** A token name and ticker, e.g. "Turbo Otter" / "TOTTR". */
export function tokenName(random: Random, index: number): { name: string; symbol: string } {
  const adjective = random.pick(ADJECTIVES);
  const noun = random.pick(NOUNS);
  const symbol = `${adjective[0]}${noun.slice(0, 4)}`.toUpperCase() + (index >= 400 ? String(index) : "");
  return { name: `${adjective} ${noun}`, symbol };
}

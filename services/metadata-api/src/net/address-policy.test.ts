import { describe, expect, test } from "vitest";
import { classifyHost, isPublicAddress, rawHostOf } from "./address-policy.js";

describe("isPublicAddress", () => {
  test("default", () => {
    expect(isPublicAddress("93.184.216.34")).toBe(true);
    expect(isPublicAddress("2606:4700:4700::1111")).toBe(true);
  });

  test("error: every non-public range is refused", () => {
    for (const address of [
      "0.0.0.0",
      "0.1.2.3",
      "127.0.0.1",
      "127.255.0.1",
      "10.0.0.1",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "192.0.2.1",
      "198.18.0.1",
      "240.0.0.1",
      "::",
      "::1",
      "[::1]",
      "::ffff:127.0.0.1",
      "::ffff:8.8.8.8",
      "::127.0.0.1",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "fe80::1%eth0",
      "ff02::1",
      "64:ff9b::7f00:1",
      "2002:7f00:1::1",
      "2001::1",
      "2001:db8::1",
      "not-an-ip",
      "0x7f.1",
      "2130706433",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });
});

describe("classifyHost", () => {
  test("default", () => {
    expect(classifyHost("example.com", "example.com")).toEqual({ kind: "name" });
    expect(classifyHost("8.8.8.8", "8.8.8.8")).toEqual({ kind: "ip", address: "8.8.8.8" });
    expect(classifyHost("[::1]", "[::1]")).toEqual({ kind: "ip", address: "::1" });
  });

  test("error: octal, hex and short IPv4 forms are refused as written", () => {
    for (const raw of [
      "0x7f.1",
      "0177.0.0.1",
      "2130706433",
      "127.1",
      "0x7f000001",
      "017700000001",
      "0x08.0x08.0x08.0x08",
    ]) {
      const hostname = new URL(`https://${raw}/`).hostname;
      expect(classifyHost(rawHostOf(`https://${raw}/`), hostname).kind, raw).toBe("invalid");
    }
  });
});

describe("rawHostOf", () => {
  test("default", () => {
    expect(rawHostOf("https://user:pw@Example.com:8443/a?b#c")).toBe("Example.com");
    expect(rawHostOf("https://[::ffff:7f00:1]:443/x")).toBe("[::ffff:7f00:1]");
    expect(rawHostOf("https://0x7f.1/x")).toBe("0x7f.1");
  });
});

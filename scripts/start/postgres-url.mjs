// PostgreSQL connection URLs and SQL quoting for the start's administrative statements.

/** `databaseUrl` with its database name replaced by `name`. */
export function withDatabase(databaseUrl, name) {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/** The database name of `databaseUrl`. */
export const databaseNameOf = (databaseUrl) =>
  decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ""));

/** `name` as an SQL identifier. */
export const quoteIdent = (name) => `"${name.replaceAll('"', '""')}"`;

/** `text` as an SQL string literal. */
export const quoteLiteral = (text) => `'${text.replaceAll("'", "''")}'`;

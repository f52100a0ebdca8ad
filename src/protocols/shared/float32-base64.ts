// OpenAI's `encoding_format: "base64"`: a vector as little-endian float32 bytes, base64-encoded (what
// the openai SDK asks for by default and decodes with a Float32Array).

export function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i], i * 4);
  return bytes.toString("base64");
}

/** The vector of a base64 float32 string; bytes past the last whole float are ignored. */
export function fromFloat32Base64(text: string): number[] {
  const bytes = Buffer.from(text, "base64");
  const vector: number[] = new Array(Math.floor(bytes.length / 4));
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

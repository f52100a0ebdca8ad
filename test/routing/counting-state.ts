// A RoutingState that writes down each operation before passing it on: what a request costs in
// round trips when the state is Redis.

import { MemoryRoutingState, type RoutingState } from "../../src/routing/state.ts";

export class CountingState implements RoutingState {
  /** "operation key", in order. */
  readonly ops: string[] = [];
  private readonly inner: RoutingState;

  constructor(inner: RoutingState = new MemoryRoutingState()) {
    this.inner = inner;
  }

  /** The operations since the last call. */
  take(): string[] {
    return this.ops.splice(0);
  }

  increment(key: string) {
    this.ops.push(`increment ${key}`);
    return this.inner.increment(key);
  }
  addToHash(key: string, fields: Record<string, number>) {
    this.ops.push(`addToHash ${key}`);
    return this.inner.addToHash(key, fields);
  }
  setInHash(key: string, fields: Record<string, number>) {
    this.ops.push(`setInHash ${key}`);
    return this.inner.setInHash(key, fields);
  }
  readHash(key: string) {
    this.ops.push(`readHash ${key}`);
    return this.inner.readHash(key);
  }
  mark(key: string, ttlMs: number, opts?: { onlyIfAbsent?: boolean }) {
    this.ops.push(`mark ${key}`);
    return this.inner.mark(key, ttlMs, opts);
  }
  markedFor(key: string) {
    this.ops.push(`markedFor ${key}`);
    return this.inner.markedFor(key);
  }
  unmark(key: string) {
    this.ops.push(`unmark ${key}`);
    return this.inner.unmark(key);
  }
}

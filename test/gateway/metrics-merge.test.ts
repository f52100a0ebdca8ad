// /metrics with workers: every worker's samples in one exposition, each labelled with its worker,
// grouped by family with HELP and TYPE once.

import assert from "node:assert/strict";
import { test } from "node:test";
import { labelledExposition } from "../../src/gateway/metrics-merge.ts";

const worker = (n: number) => `# HELP x_seconds A histogram.
# TYPE x_seconds histogram
x_seconds_bucket{le="0.1",api="a"} ${n}
x_seconds_bucket{le="+Inf",api="a"} ${n}
x_seconds_sum{api="a"} 0.5
x_seconds_count{api="a"} ${n}
# HELP y_total A counter.
# TYPE y_total counter
y_total{api="a",status="ok"} ${n}
# HELP z A gauge without labels.
# TYPE z gauge
z ${n}
`;

test("each worker's samples are labelled and grouped under one HELP and TYPE per family", () => {
  const text = labelledExposition([
    { worker: "1", text: worker(3) },
    { worker: "2", text: worker(5) },
  ]);
  assert.equal(
    text,
    `# HELP x_seconds A histogram.
# TYPE x_seconds histogram
x_seconds_bucket{worker="1",le="0.1",api="a"} 3
x_seconds_bucket{worker="1",le="+Inf",api="a"} 3
x_seconds_sum{worker="1",api="a"} 0.5
x_seconds_count{worker="1",api="a"} 3
x_seconds_bucket{worker="2",le="0.1",api="a"} 5
x_seconds_bucket{worker="2",le="+Inf",api="a"} 5
x_seconds_sum{worker="2",api="a"} 0.5
x_seconds_count{worker="2",api="a"} 5
# HELP y_total A counter.
# TYPE y_total counter
y_total{worker="1",api="a",status="ok"} 3
y_total{worker="2",api="a",status="ok"} 5
# HELP z A gauge without labels.
# TYPE z gauge
z{worker="1"} 3
z{worker="2"} 5
`,
  );
});

test("a family only one worker has yet still appears, and label values stay escaped", () => {
  const text = labelledExposition([
    { worker: "1", text: '# TYPE y_total counter\ny_total{api="odd\\"name"} 1\n' },
    { worker: "2", text: "# TYPE w_total counter\nw_total{} 2\n" },
  ]);
  assert.equal(
    text,
    '# TYPE y_total counter\ny_total{worker="1",api="odd\\"name"} 1\n# TYPE w_total counter\nw_total{worker="2"} 2\n',
  );
});

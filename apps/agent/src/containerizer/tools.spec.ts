import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { detectImageTools } from './provisioner/image-tools';
import { fileKey, probed } from './tools';

describe("the agent's probes of its tools", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbiter-probes-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Writes `name` as a tool that counts its runs in `name.runs` and prints `output` (or fails). */
  const tool = (name: string, output: string | null) => {
    const file = path.join(dir, name);
    const body = output === null ? 'exit 1' : `echo "${output}"`;
    fs.writeFileSync(file, `#!/bin/sh\necho run >> ${file}.runs\n${body}\n`, { mode: 0o755 });
    return file;
  };
  const runs = (file: string) =>
    fs.existsSync(`${file}.runs`) ? fs.readFileSync(`${file}.runs`, 'utf8').split('\n').filter(Boolean).length : 0;

  it('runs a tool that works once per process, however many agents start', () => {
    const skopeo = tool('skopeo', 'skopeo version 1.9.3');
    const umoci = tool('umoci', 'umoci version 0.4.7');
    const find = (name: string) => ({ skopeo, umoci })[name as 'skopeo' | 'umoci'];
    for (let agent = 0; agent < 3; agent++)
      expect(detectImageTools(find)).toEqual({ tools: { skopeo, umoci }, versions: { skopeo: '1.9.3', umoci: '0.4.7' } });
    expect([runs(skopeo), runs(umoci)]).toEqual([1, 1]);
  });

  it('probes a replaced tool again, and one that failed every time', () => {
    const skopeo = tool('skopeo', 'skopeo version 1.9.3');
    const umoci = tool('umoci', null);
    const find = (name: string) => ({ skopeo, umoci })[name as 'skopeo' | 'umoci'];
    expect(detectImageTools(find).problem).toMatch(/umoci not installed/);
    expect(detectImageTools(find).problem).toMatch(/umoci not installed/);
    expect(runs(umoci)).toBe(2);

    // An upgrade: the same path, another file.
    const before = fileKey(skopeo);
    tool('skopeo', 'skopeo version 1.14.0 (a longer line)');
    tool('umoci', 'umoci version 0.4.7');
    expect(fileKey(skopeo)).not.toBe(before);
    expect(detectImageTools(find).versions).toEqual({ skopeo: '1.14.0', umoci: '0.4.7' });
  });

  it('keeps only answers that something works', () => {
    let asked = 0;
    const ask = (answer: boolean) =>
      probed(
        `test ${dir}`,
        (works: boolean) => works,
        () => (asked++, answer),
      );
    expect([ask(false), ask(false), ask(true), ask(false)]).toEqual([false, false, true, true]);
    expect(asked).toBe(3);
  });
});

import { imageErrorOf, lastLine, ToolError } from './image-tools';

const fatal = (msg: string) => `time="2026-11-27T09:42:48Z" level=fatal msg="${msg.replace(/"/g, '\\"')}"\n`;
const reason = (stderr: string) => imageErrorOf('r:5000/app:1', 'registry r:5000', new ToolError('skopeo', stderr)).message;

describe('image tool failures, worded for the user', () => {
  it("reads a Go tool's fatal line", () => {
    expect(lastLine(fatal('reading manifest 1: manifest unknown'))).toBe('reading manifest 1: manifest unknown');
    expect(lastLine('plain\nlast line\n')).toBe('last line');
  });

  it.each([
    ['reading manifest 1 in r:5000/app: manifest unknown: manifest unknown', /unknown image: registry r:5000 has no such repository/],
    [
      'pinging container registry r:5000: Get "http://r:5000/v2/": dial tcp 127.0.0.1:5000: connect: connection refused',
      /registry unreachable/,
    ],
    [
      'pinging container registry nosuch: Get "http://nosuch/v2/": dial tcp: lookup nosuch on 10.0.0.53:53: no such host',
      /registry unreachable/,
    ],
    ['reading manifest 1 in r:5000/app: unauthorized: authentication required', /authentication refused by registry r:5000/],
    ['writing blob: happened during read: Digest did not match, expected sha256:0f, got sha256:7e', /digest mismatch/],
    ['Manifest does not match provided manifest digest sha256:69', /digest mismatch/],
    ['Get "https://r:5000/v2/": http: server gave HTTP response to HTTPS client', /speaks plain HTTP/],
    // A port with 404 or 401 in it is no HTTP status.
    [
      'Error parsing image name "docker://127.0.0.1:34043/test/busybox:1": pinging container registry 127.0.0.1:34043: Get "https://127.0.0.1:34043/v2/": http: server gave HTTP response to HTTPS client',
      /speaks plain HTTP/,
    ],
    [
      'pinging container registry r:14013: Get "http://r:14013/v2/": dial tcp 127.0.0.1:14013: connect: connection refused',
      /registry unreachable/,
    ],
    ['reading manifest 1 in r:5000/app: StatusCode: 404, "404 page not found"', /unknown image/],
    ['Get "https://r:5000/v2/": x509: certificate signed by unknown authority', /certificate the agent does not trust/],
    ['write /w/images/tmp/x/rootfs/bin/busybox: no space left on device', /disk full/],
  ])('%s', (msg, expected) => {
    const text = reason(fatal(msg));
    expect(text).toMatch(expected);
    expect(text).toMatch(/^image r:5000\/app:1: /);
  });

  it('finds the cause anywhere in what the tool said (a panic on a full disk ends with its stack)', () => {
    const panic =
      'write /w/images/tmp/x/rootfs/bin/busybox: no space left on device\npanic: unpacking\n\tgithub.com/klauspost/pgzip/gunzip.go:379 +0x2aa\n';
    expect(imageErrorOf('a', 'registry r', new ToolError('umoci', panic)).message).toMatch(
      /^image a: disk full on the agent .*gunzip\.go:379/,
    );
  });

  it('says a pull that took too long was stopped', () => {
    expect(imageErrorOf('a', 'registry r', new ToolError('skopeo', '', true)).message).toBe(
      'image a: the pull from registry r took too long and was stopped',
    );
  });
});

import { archiveKindOf, confined, FetchError, sourceOf, targetOf } from './uris';

describe('fetch URIs', () => {
  it('takes http, https, file URLs and absolute paths, and refuses other schemes with the reason', () => {
    expect(sourceOf('http://example.test/a.tgz')).toMatchObject({ kind: 'http' });
    expect(sourceOf('https://example.test/a.tgz')).toMatchObject({ kind: 'http' });
    expect(sourceOf('file:///opt/a%20b.jar')).toEqual({ kind: 'file', path: '/opt/a b.jar' });
    expect(sourceOf('/opt/agent.jar')).toEqual({ kind: 'file', path: '/opt/agent.jar' });
    expect(() => sourceOf('hdfs://nn/a.jar')).toThrow('the scheme hdfs is not supported (http, https and file are)');
    expect(() => sourceOf('agent.jar')).toThrow(FetchError);
    expect(() => sourceOf('file://other-host/a')).toThrow('a file URI must name a local file');
  });

  it('confines output files to the sandbox', () => {
    expect(confined('/sb', 'a/b.jar')).toBe('/sb/a/b.jar');
    expect(confined('/sb', './x/../y')).toBe('/sb/y');
    expect(() => confined('/sb', '../x')).toThrow('leaves the sandbox');
    expect(() => confined('/sb', 'a/../../x')).toThrow('leaves the sandbox');
    expect(() => confined('/sb', '/etc/passwd')).toThrow('is absolute');
    expect(() => confined('/sb', '.')).toThrow('leaves the sandbox');
    const uri = (value: string, outputFile?: string) => ({ value, outputFile });
    expect(targetOf('/sb', uri('http://h/d/agent.jar'), sourceOf('http://h/d/agent.jar'))).toBe('/sb/agent.jar');
    expect(targetOf('/sb', uri('http://h/d/agent.jar', 'bin/a.jar'), sourceOf('http://h/d/agent.jar'))).toBe('/sb/bin/a.jar');
    expect(() => targetOf('/sb', uri('http://h/', undefined), sourceOf('http://h/'))).toThrow('names no file');
    expect(() => targetOf('/sb', uri('http://h/a', '../../etc/cron.d/x'), sourceOf('http://h/a'))).toThrow('leaves the sandbox');
  });

  it('tells archives by their names', () => {
    expect(['a.tar', 'a.tar.gz', 'a.tgz', 'a.tar.bz2', 'a.tar.xz', 'A.ZIP', 'a.jar'].map(archiveKindOf)).toEqual([
      'tar',
      'tar.gz',
      'tar.gz',
      'tar.bz2',
      'tar.xz',
      'zip',
      undefined,
    ]);
  });
});

import { EncodedAnswers } from './operator-answers';
import { Fragment, FragmentList } from './operator-fragments';

describe('EncodedAnswers', () => {
  const a = new Fragment(() => ({ name: 'a' }));
  const b = new Fragment(() => ({ name: 'b' }));
  const answer = (items: Fragment[], extra = 1) => ({ type: 'GET_TASKS', get_tasks: { tasks: new FragmentList(items), extra } });
  const encoder = () => {
    let n = 0;
    return jest.fn(() => Promise.resolve(Buffer.from(`encoding ${++n}`)));
  };

  it('keeps the bytes of an answer while the next one is the same, per slot', async () => {
    const answers = new EncodedAnswers();
    const encode = encoder();
    expect(String(await answers.bytes('json', answer([a, b]), encode))).toBe('encoding 1');
    // Another answer object with the same fragments and the same rest: the kept bytes.
    expect(String(await answers.bytes('json', answer([a, b]), encode))).toBe('encoding 1');
    expect(encode).toHaveBeenCalledTimes(1);
    // Another slot (media type, compression) has its own bytes.
    expect(String(await answers.bytes('protobuf', answer([a, b]), encode))).toBe('encoding 2');
  });

  it('encodes again when a fragment or anything else in the answer differs', async () => {
    const answers = new EncodedAnswers();
    const encode = encoder();
    await answers.bytes('json', answer([a, b]), encode);
    // Fewer fragments (another caller's view), other fragments, another value beside them.
    expect(String(await answers.bytes('json', answer([a]), encode))).toBe('encoding 2');
    expect(String(await answers.bytes('json', answer([a, new Fragment(() => ({ name: 'b' }))]), encode))).toBe('encoding 3');
    expect(String(await answers.bytes('json', answer([a], 2), encode))).toBe('encoding 4');
    expect(String(await answers.bytes('json', answer([a], 2), encode))).toBe('encoding 4');
  });

  it('keeps nothing for answers without fragments, nor a failed encoding', async () => {
    const answers = new EncodedAnswers();
    const encode = encoder();
    await answers.bytes('json', { type: 'GET_HEALTH' }, encode);
    await answers.bytes('json', { type: 'GET_HEALTH' }, encode);
    expect(encode).toHaveBeenCalledTimes(2);
    await expect(answers.bytes('json', answer([a]), () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(String(await answers.bytes('json', answer([a]), encode))).toBe('encoding 3');
  });
});

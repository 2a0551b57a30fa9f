import { Resources } from '@arbiter/allocator';
import { OfferBook } from './offer-book';
import { runIn } from '../kernel/order';

/** The state's owners assert that they change in a turn of the serial order (kernel/order.ts). */
const inTurn = (body: () => void) => () => runIn('turn', body);

const offer = (id: string, frameworkId: string, agentId: string, createdAt: number) => ({
  id,
  frameworkId,
  agentId,
  role: 'r',
  resources: Resources.fromScalars({ cpus: 1 }),
  createdAt,
});

describe('OfferBook', () => {
  const book = () => {
    const b = new OfferBook();
    b.add([offer('1', 'f1', 'a1', 10), offer('2', 'f1', 'a2', 20), offer('3', 'f2', 'a1', 30), offer('4', 'f2', 'a2', 40)]);
    return b;
  };
  const ids = (offers: Array<{ id: string }>) => offers.map((o) => o.id);

  it(
    "takes out an agent's or a framework's offers, and each offer once",
    inTurn(() => {
      const b = book();
      expect(ids(b.takeOnAgent('a1'))).toEqual(['1', '3']);
      expect(ids(b.takeOfFramework('f2'))).toEqual(['4']);
      expect(ids(b.takeOnAgent('a1'))).toEqual([]);
      expect(ids([...b.values()])).toEqual(['2']);
      expect(ids(b.take(['2', '2', 'unknown']))).toEqual(['2']);
      expect(b.size).toBe(0);
      expect(ids(b.takeOfFramework('f1'))).toEqual([]);
    }),
  );

  it(
    "reads an agent's offers without taking them out",
    inTurn(() => {
      const b = book();
      expect(ids(b.onAgent('a2'))).toEqual(['2', '4']);
      expect(ids(b.onAgent('unknown'))).toEqual([]);
      b.take(['2']);
      expect(ids(b.onAgent('a2'))).toEqual(['4']);
      expect(b.size).toBe(3);
    }),
  );

  it(
    'takes out the offers made by a time, oldest first',
    inTurn(() => {
      const b = book();
      expect(ids(b.takeMadeBy(20))).toEqual(['1', '2']);
      expect(ids(b.takeMadeBy(20))).toEqual([]);
      expect(b.size).toBe(2);
    }),
  );

  it(
    'marks an offer sent only while it is outstanding',
    inTurn(() => {
      const b = book();
      expect(b.markSent('1')).toBe(true);
      expect(b.get('1')?.sent).toBe(true);
      expect(b.get('2')?.sent).toBe(false);
      b.take(['2']);
      expect(b.markSent('2')).toBe(false);
      b.clear();
      expect(b.size).toBe(0);
      expect(b.takeOnAgent('a2')).toEqual([]);
    }),
  );

  it('refuses, under tests, a change outside a turn of the serial order or a commit', () => {
    expect(() => new OfferBook().take(['1'])).toThrow(/outside the serial order/);
  });
});

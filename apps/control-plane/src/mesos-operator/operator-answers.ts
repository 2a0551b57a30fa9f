/**
 * The last encoded bytes of the whole-cluster answers (GET_STATE and the like), kept while the
 * next answer is the same: same fragments (operator-fragments.ts), same everything else. A poll
 * of a cluster where nothing changed then costs reading the versions and comparing, not encoding
 * and compressing tens of megabytes again. One answer per slot (call, media type, compression),
 * whoever asked: the bytes are a function of the signature alone, and the signature of what the
 * caller may see, so no caller gets what its view ACLs hide.
 */
import { signatureOf } from './operator-fragments';

export class EncodedAnswers {
  private readonly last = new Map<string, { signature: string; bytes: Promise<Buffer> }>();
  /** Each answer's signature, made once for all its encodings. */
  private readonly signatures = new WeakMap<object, string | undefined>();

  /** `answer`'s bytes in `slot`: the kept ones when the answer is the same, else `encode()`'s, kept. */
  bytes(slot: string, answer: object, encode: () => Promise<Buffer>): Promise<Buffer> {
    if (!this.signatures.has(answer)) this.signatures.set(answer, signatureOf(answer));
    const signature = this.signatures.get(answer);
    if (signature === undefined) return encode();
    const kept = this.last.get(slot);
    if (kept?.signature === signature) return kept.bytes;
    const bytes = encode();
    this.last.set(slot, { signature, bytes });
    bytes.catch(() => {
      if (this.last.get(slot)?.bytes === bytes) this.last.delete(slot);
    });
    return bytes;
  }
}

/**
 * Hierarchical DRF sorter, with the semantics of Mesos's DRFSorter.
 *
 * Clients are paths (`a`, `b/e/f`) forming a tree. A client with children competes inside its
 * own subtree through a virtual leaf `<client>/.`. A node's share is the max over resource names
 * (with a positive pool total, not excluded) of subtree allocation / total, divided by the
 * weight of the node's path (virtual leaves weigh 1). Siblings are ordered by share, then
 * allocation count, then path. `sort()` walks the tree in pre-order and lists active clients.
 *
 * Incremental: an allocation change recomputes the shares on the client's path and moves only
 * those nodes within their sibling arrays; pool changes re-sort lazily at the next `sort()`.
 * Amounts are integer thousandths (as in `Resources.scalarMilli()`).
 */
import { ChunkedOrder } from './chunked-order';
import { ChunkCursor, type SortCursor, TreeCursor } from './cursors';
import { addInto, compare, type MilliQuantities, type Node, VIRTUAL } from './node';
import { SorterPool } from './pool';
import { type SharedCopy, SharedHoldings } from './shared-holdings';

export class DRFSorter {
  private readonly root: Node = {
    path: '',
    client: '',
    virtual: false,
    parent: null,
    children: [],
    isClient: false,
    active: false,
    allocation: new Map(),
    count: 0,
    share: 0,
  };
  /** Client path -> its leaf (the virtual leaf when the client has children). */
  private readonly clients = new Map<string, Node>();
  /** Every node by path (internal nodes, leaves, virtual leaves). */
  private readonly nodes = new Map<string, Node>();
  private readonly weights = new Map<string, number>();
  private readonly pool: SorterPool;
  private poolVersion: number;
  private readonly excluded: ReadonlySet<string>;
  private dirty = false;
  /**
   * The active client leaves in order, cached. For a flat sorter (no '/' in any client) it
   * is kept current incrementally (a changed client is moved) and the root's children are
   * re-sorted only when the tree is needed. A cursor reads it as it is: a caller that
   * changes allocations while reading must copy what it still needs first (the allocator
   * does, before an offer that leaves something on the agent).
   */
  private orderNodes: ChunkedOrder | null = null;
  /** What sort() returns: the names of `orderNodes`, made when asked for. */
  private order: string[] | null = null;
  private rootUnsorted = false;
  private totalsVersion = -1;
  private totalsList: ReadonlyArray<readonly [string, number]> = [];
  private nestedClients = 0;
  /** Copies of shared resources held, each counted once per client and agent. */
  private readonly shared = new SharedHoldings();

  constructor(options: { excludedNames?: Iterable<string>; pool?: SorterPool } = {}) {
    this.excluded = new Set(options.excludedNames ?? []);
    this.pool = options.pool ?? new SorterPool();
    this.poolVersion = this.pool.version;
    this.nodes.set('', this.root);
  }

  // ------------------------------------------------------------ clients

  /** Adds an inactive client. */
  add(client: string): void {
    if (this.clients.has(client)) return;
    this.ensureSorted();
    this.invalidateOrder();
    if (client.includes('/')) this.nestedClients++;
    const segments = client.split('/');
    let parent = this.root;
    for (let i = 0; i < segments.length; i++) {
      const path = segments.slice(0, i + 1).join('/');
      let node = this.nodes.get(path);
      const last = i === segments.length - 1;
      if (!node) {
        node = this.newNode(path, parent, last);
        this.insert(parent, node);
      } else if (last) {
        // An existing internal node becomes a client: it competes through its virtual leaf.
        const leaf = this.newNode(`${path}/${VIRTUAL}`, node, true);
        this.insert(node, leaf);
        this.clients.set(client, leaf);
        return;
      } else if (node.isClient) {
        // A client gains a child: move it down into a virtual leaf under a new internal node.
        this.splitLeaf(node);
      }
      if (last) this.clients.set(client, node);
      parent = node;
    }
  }

  remove(client: string): void {
    const leaf = this.clients.get(client);
    if (!leaf) return;
    this.ensureSorted();
    this.invalidateOrder();
    if (client.includes('/')) this.nestedClients--;
    this.shared.remove(client);
    const allocation = this.allocationQuantities(client);
    for (let n: Node | null = leaf.parent; n && n !== this.root; n = n.parent) addInto(n.allocation, allocation, -1);
    this.clients.delete(client);
    this.detach(leaf);
    this.nodes.delete(leaf.path);
    let node: Node | null = leaf.parent;
    // Prune internal nodes left without clients; collapse a lone virtual leaf back into its client.
    while (node && node !== this.root) {
      const parent: Node | null = node.parent;
      if (node.children.length === 0 && !node.isClient) {
        this.detach(node);
        this.nodes.delete(node.path);
      } else if (node.children.length === 1 && node.children[0].path === `${node.path}/${VIRTUAL}`) {
        const v = node.children[0];
        node.children = [];
        node.isClient = true;
        node.active = v.active;
        // The subtree count is kept: counts never go down.
        this.nodes.delete(v.path);
        this.clients.set(node.path, node);
      }
      this.refresh(node);
      node = parent;
    }
  }

  activate(client: string): void {
    const leaf = this.clients.get(client);
    if (leaf && !leaf.active) {
      leaf.active = true;
      this.invalidateOrder();
    }
  }

  deactivate(client: string): void {
    const leaf = this.clients.get(client);
    if (leaf?.active) {
      leaf.active = false;
      this.invalidateOrder();
    }
  }

  contains(client: string): boolean {
    return this.clients.has(client);
  }

  isActive(client: string): boolean {
    return this.clients.get(client)?.active ?? false;
  }

  /** Number of clients, active and inactive. */
  count(): number {
    return this.clients.size;
  }

  /** Weight of a path (a client or an internal node); may be set before the path exists. */
  setWeight(path: string, weight: number): void {
    this.weights.set(path, weight);
    this.ensureSorted();
    this.invalidateOrder();
    const node = this.nodes.get(path);
    if (node) this.refresh(node);
  }

  // ------------------------------------------------------------ allocations

  /** `shared`: the change's shared resources, counted once per client and agent (shared-holdings.ts). */
  allocated(client: string, agent: string, quantities: MilliQuantities, shared?: readonly SharedCopy[]): void {
    this.change(client, agent, shared?.length ? this.sharedAdjusted(client, agent, quantities, shared, 1) : quantities, 1);
    for (let n: Node | null = this.clients.get(client) ?? null; n && n !== this.root; n = n.parent) n.count += 1;
    this.refreshPath(client, 1);
  }

  unallocated(client: string, agent: string, quantities: MilliQuantities, shared?: readonly SharedCopy[]): void {
    this.change(client, agent, shared?.length ? this.sharedAdjusted(client, agent, quantities, shared, -1) : quantities, -1);
    this.refreshPath(client);
  }

  update(client: string, agent: string, oldQuantities: MilliQuantities, newQuantities: MilliQuantities): void {
    this.change(client, agent, oldQuantities, -1);
    this.change(client, agent, newQuantities, 1);
    this.refreshPath(client);
  }

  private sharedAdjusted(client: string, agent: string, q: MilliQuantities, shared: readonly SharedCopy[], sign: 1 | -1) {
    return this.clients.has(client) ? this.shared.adjust(client, agent, q, shared, sign) : q;
  }

  /** Allocation summed over agents (milli by name): of one client, or of all clients. */
  allocationQuantities(client?: string): Map<string, number> {
    const out = new Map<string, number>();
    const leaves = client === undefined ? [...this.clients.values()] : [this.clients.get(client)];
    for (const leaf of leaves) if (leaf) addInto(out, leaf.allocation, 1);
    return out;
  }

  // ------------------------------------------------------------ pool

  /** Adds (or replaces) an agent's quantities in the pool; with a shared pool, for all sharers. */
  addTotal(agent: string, quantities: MilliQuantities): void {
    this.pool.set(agent, quantities);
  }

  removeTotal(agent: string): void {
    this.pool.set(agent, undefined);
  }

  // ------------------------------------------------------------ order

  /** The weighted dominant share used for sorting. */
  share(client: string): number {
    this.clean();
    return this.clients.get(client)?.share ?? 0;
  }

  /** Active clients in DRF order. */
  sort(): readonly string[] {
    this.clean();
    this.order ??= this.ordered()
      .toArray()
      .map((n) => n.client);
    return this.order;
  }

  /**
   * Active clients in DRF order, read one at a time: the same sequence as `sort()`, but a
   * hierarchical sorter walks its tree only as far as the caller reads. Valid until the
   * sorter next changes; `rest()` copies what is left, for a caller about to change it.
   */
  cursor(): SortCursor {
    this.clean();
    if (this.nestedClients === 0 || this.orderNodes) return new ChunkCursor(this.ordered().chunks);
    this.ensureSorted();
    return new TreeCursor(this.root);
  }

  /** The cached order of active client leaves, walked from the tree when missing. */
  private ordered(): ChunkedOrder {
    if (this.orderNodes) return this.orderNodes;
    this.ensureSorted();
    const nodes: Node[] = [];
    const walk = (node: Node) => {
      for (const child of node.children) {
        if (child.isClient) {
          if (child.active) nodes.push(child);
        } else walk(child);
      }
    };
    walk(this.root);
    this.orderNodes = new ChunkedOrder(nodes);
    return this.orderNodes;
  }

  private invalidateOrder(): void {
    this.orderNodes = null;
    this.order = null;
  }

  // ------------------------------------------------------------ internals

  private newNode(path: string, parent: Node, isClient: boolean): Node {
    const virtual = path.endsWith(`/${VIRTUAL}`);
    const node: Node = {
      path,
      client: virtual ? path.slice(0, -2) : path,
      virtual,
      parent,
      children: [],
      isClient,
      active: false,
      allocation: new Map(),
      count: 0,
      share: 0,
    };
    this.nodes.set(path, node);
    return node;
  }

  /** Turns client leaf `node` into an internal node holding its virtual leaf. */
  private splitLeaf(node: Node): void {
    const leaf = this.newNode(`${node.path}/${VIRTUAL}`, node, true);
    leaf.active = node.active;
    leaf.allocation = new Map(node.allocation);
    leaf.count = node.count;
    node.isClient = false;
    node.active = false;
    this.clients.set(node.path, leaf);
    leaf.share = this.computeShare(leaf);
    node.children = [leaf];
  }

  // The agent is part of the sorter's interface (as in Mesos); shares need only the client's totals.
  private change(client: string, _agent: string, quantities: MilliQuantities, sign: number): void {
    const leaf = this.clients.get(client);
    if (!leaf) throw new Error(`unknown client '${client}'`);
    for (let n: Node | null = leaf; n && n !== this.root; n = n.parent) addInto(n.allocation, quantities, sign);
  }

  /** After a change of the client's allocation (its count went up by `countDelta`). */
  private refreshPath(client: string, countDelta = 0): void {
    if (this.pool.version !== this.poolVersion) this.dirty = true;
    if (this.dirty) return; // everything is recomputed at the next clean()
    const leaf = this.clients.get(client);
    if (!leaf) return; // change() has already refused an unknown client
    const nodes = this.orderNodes;
    if (this.nestedClients > 0 || !nodes || !leaf.active) {
      if (this.nestedClients > 0) this.invalidateOrder();
      for (let n: Node | null = leaf; n && n !== this.root; n = n.parent) this.refresh(n);
      return;
    }
    // Flat sorter: move the client within the cached order only. It is found by the share
    // and count it was placed with (the order is sorted by them, then by the unique path).
    nodes.remove(leaf, leaf.share, leaf.count - countDelta);
    leaf.share = this.computeShare(leaf);
    this.rootUnsorted = true;
    this.order = null;
    nodes.insert(leaf);
  }

  /** Recomputes one node's share and moves it to its place among its siblings. */
  private refresh(node: Node): void {
    if (this.dirty || !node.parent) return;
    node.share = this.computeShare(node);
    this.detach(node);
    this.insert(node.parent, node);
  }

  private detach(node: Node): void {
    const siblings = node.parent?.children;
    const i = siblings?.indexOf(node) ?? -1;
    if (siblings && i >= 0) siblings.splice(i, 1);
  }

  private insert(parent: Node, node: Node): void {
    node.parent = parent;
    if (!this.dirty) node.share = this.computeShare(node);
    const siblings = parent.children;
    let lo = 0;
    let hi = siblings.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(siblings[mid], node) < 0) lo = mid + 1;
      else hi = mid;
    }
    siblings.splice(lo, 0, node);
  }

  private computeShare(node: Node): number {
    let share = 0;
    for (const [name, total] of this.shareTotals()) {
      const allocated = node.allocation.get(name);
      if (allocated === undefined) continue;
      const s = allocated / 1000 / (total / 1000);
      if (s > share) share = s;
    }
    const weight = node.virtual ? 1 : (this.weights.get(node.path) ?? 1);
    return share / weight;
  }

  /** The pool's positive totals of names not excluded, as a list (kept per pool version). */
  private shareTotals(): ReadonlyArray<readonly [string, number]> {
    if (this.totalsVersion !== this.pool.version) {
      this.totalsVersion = this.pool.version;
      this.totalsList = [...this.pool.totals].filter(([name, total]) => total > 0 && !this.excluded.has(name));
    }
    return this.totalsList;
  }

  /** Restores the root's sibling order after flat-mode updates skipped it. */
  private ensureSorted(): void {
    if (!this.rootUnsorted) return;
    this.rootUnsorted = false;
    this.root.children.sort(compare);
  }

  private clean(): void {
    if (this.pool.version !== this.poolVersion) {
      this.poolVersion = this.pool.version;
      this.dirty = true;
    }
    if (!this.dirty) return;
    this.rootUnsorted = false;
    this.dirty = false;
    this.invalidateOrder();
    const resort = (node: Node) => {
      for (const child of node.children) {
        child.share = this.computeShare(child);
        resort(child);
      }
      node.children.sort(compare);
    };
    resort(this.root);
  }
}

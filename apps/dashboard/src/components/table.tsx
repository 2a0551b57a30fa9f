'use client';
/**
 * Tables on TanStack Table (headless; the markup is ours). Sorting and filtering happen in the
 * API: a sortable column names its API sort field in `meta.sort`, and the table reports clicks
 * on its header through `onSort`. VirtualTable renders only the rows in view (TanStack
 * Virtual) and asks for more as the operator scrolls, for lists of tens of thousands.
 */
import {
  type CellData,
  type ColumnDef,
  createColumnHelper,
  type RowData,
  type TableFeatures,
  tableFeatures,
  useTable,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, type ReactNode, useEffect, useRef } from 'react';
import { Empty } from './ui';

declare module '@tanstack/table-core' {
  // The type parameters must match the declaration this merges with, used or not.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface ColumnMeta<TFeatures extends TableFeatures, TData extends RowData, TValue extends CellData = CellData> {
    /** The API's sort field for this column. */
    sort?: string;
    align?: 'right';
    width?: number | string;
  }
}

const features = tableFeatures({});
export type Columns<T extends RowData> = Array<ColumnDef<typeof features, T>>;
export const columnsFor = <T extends RowData>() => createColumnHelper<typeof features, T>();

export interface Sort {
  field: string;
  descending: boolean;
}
/** The API's `sort` parameter: `field` or `-field`. */
export const sortParam = (s: Sort) => `${s.descending ? '-' : ''}${s.field}`;

interface TableProps<T extends RowData> {
  columns: Columns<T>;
  data: T[];
  getRowId: (row: T) => string;
  sort?: Sort;
  onSort?: (s: Sort) => void;
  empty?: ReactNode;
  onRowClick?: (row: T) => void;
  label: string;
}

function useDataTable<T extends RowData>({ columns, data, getRowId }: Pick<TableProps<T>, 'columns' | 'data' | 'getRowId'>) {
  return useTable({ features, columns, data, getRowId: (row: T) => getRowId(row) });
}

function Head<T extends RowData>({
  table,
  sort,
  onSort,
}: {
  table: ReturnType<typeof useDataTable<T>>;
  sort?: Sort;
  onSort?: (s: Sort) => void;
}) {
  return (
    <thead>
      {table.getHeaderGroups().map((group) => (
        <tr key={group.id}>
          {group.headers.map((header) => {
            const meta = header.column.columnDef.meta;
            const sortField = meta?.sort;
            const active = sort && meta?.sort === sort.field;
            const label = header.isPlaceholder ? null : <table.FlexRender header={header} />;
            return (
              <th
                key={header.id}
                className={meta?.align === 'right' ? 'num' : undefined}
                style={meta?.width ? { width: meta.width } : undefined}
                aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : meta?.sort ? 'none' : undefined}
              >
                {sortField && onSort ? (
                  <button
                    type="button"
                    className="sort"
                    onClick={() => onSort({ field: sortField, descending: active ? !sort.descending : false })}
                  >
                    {label} {active ? (sort.descending ? '▼' : '▲') : ''}
                  </button>
                ) : (
                  label
                )}
              </th>
            );
          })}
        </tr>
      ))}
    </thead>
  );
}

function rowProps<T>(row: T, onRowClick?: (row: T) => void) {
  if (!onRowClick) return {};
  return {
    className: 'clickable',
    tabIndex: 0,
    onClick: () => onRowClick(row),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key === 'Enter') onRowClick(row);
    },
  };
}

/**
 * A cell's content: its column's `cell` called as a function of the cell. TanStack's FlexRender
 * mounts a function as a component, and the columns a page builds as it renders are new
 * functions each time: each render (a live page's, every second or so) would mount every cell
 * afresh, and what a cell holds would be lost (a kill confirmation opened in it closed under the
 * operator's pointer). Cells are plain functions of their row, using no hooks; the components
 * they return (KillButton, links) keep their state across renders.
 */
function cellContent(cell: { column: { columnDef: { cell?: unknown } }; getContext: () => unknown }): ReactNode {
  const render = cell.column.columnDef.cell;
  return typeof render === 'function' ? (render as (context: unknown) => ReactNode)(cell.getContext()) : (render as ReactNode);
}

export function DataTable<T extends RowData>({ columns, data, getRowId, sort, onSort, empty, onRowClick, label }: TableProps<T>) {
  const table = useDataTable({ columns, data, getRowId });
  return (
    <div className="table-wrap">
      <table className="data" aria-label={label}>
        <Head table={table} sort={sort} onSort={onSort} />
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} {...rowProps(row.original, onRowClick)}>
              {row.getAllCells().map((cell) => (
                <td key={cell.id} className={cell.column.columnDef.meta?.align === 'right' ? 'num' : undefined}>
                  {cellContent(cell)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {data.length === 0 ? <Empty>{empty ?? 'Nothing here.'}</Empty> : null}
    </div>
  );
}

const ROW_HEIGHT = 44;

/** Rows rendered as they scroll into view; `onNearEnd` asks for the next page. */
export function VirtualTable<T extends RowData>({
  columns,
  data,
  getRowId,
  sort,
  onSort,
  empty,
  onRowClick,
  label,
  onNearEnd,
  footer,
}: TableProps<T> & { onNearEnd?: () => void; footer?: ReactNode }) {
  const table = useDataTable({ columns, data, getRowId });
  const rows = table.getRowModel().rows;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const last = items.at(-1)?.index ?? -1;
  useEffect(() => {
    if (onNearEnd && last >= rows.length - 30) onNearEnd();
  }, [last, rows.length, onNearEnd]);
  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const span = columns.length;
  return (
    <div className="table-wrap virtual-scroll" ref={scrollRef}>
      <table className="data" aria-label={label} aria-rowcount={rows.length}>
        <Head table={table} sort={sort} onSort={onSort} />
        <tbody>
          {before > 0 ? (
            <tr aria-hidden="true">
              <td colSpan={span} style={{ height: before, padding: 0, border: 'none' }} />
            </tr>
          ) : null}
          {items.map((item) => {
            const row = rows[item.index];
            return (
              <tr
                key={row.id}
                data-index={item.index}
                style={{ height: ROW_HEIGHT }}
                aria-rowindex={item.index + 2}
                {...rowProps(row.original, onRowClick)}
              >
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} className={cell.column.columnDef.meta?.align === 'right' ? 'num' : undefined}>
                    {cellContent(cell)}
                  </td>
                ))}
              </tr>
            );
          })}
          {after > 0 ? (
            <tr aria-hidden="true">
              <td colSpan={span} style={{ height: after, padding: 0, border: 'none' }} />
            </tr>
          ) : null}
        </tbody>
      </table>
      {data.length === 0 ? <Empty>{empty ?? 'Nothing here.'}</Empty> : null}
      {footer}
    </div>
  );
}

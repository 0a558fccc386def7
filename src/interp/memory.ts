import type { CValue } from '../c/types.js';
import { fieldExprType } from '../ir/build.js';
import { isRecord, type Type } from '../ir/types.js';
import { isPunUnion } from '../ir/vector.js';

/**
 * Kiln's memory model. Every object (a variable instance) is a flat array of *cells*, one per
 * scalar leaf (struct fields and array elements flattened in declaration order) plus, for each
 * union, one tag cell recording the member last stored. Layout bytes never matter because Kiln
 * programs never reinterpret memory: an access to a union member other than the active one is
 * reported as UB, and pointers only ever point at whole cells.
 */

/**
 * A pointer value: an object and a cell index, or null (`obj === null`). `origin` is the id of
 * the expression that created it; `gen` the object's lifetime it was taken in (objects of block
 * locals are reused by later entries of the block, so `alive` alone cannot tell a stale pointer).
 */
export interface Ptr {
  readonly obj: MemObject | null;
  readonly cell: number;
  readonly origin: number;
  readonly gen: number;
}

/** Whether a pointer refers to an object that is no longer (or not in this lifetime) alive. */
export function dangling(p: Ptr): boolean {
  const o = p.obj;
  return o !== null && (!o.alive || o.gen !== p.gen);
}

/** What a cell holds: an arithmetic value, a pointer, a union tag, or `undefined` when uninitialised. */
export type Cell = CValue | Ptr | undefined;

/** The flattened shape of a type. */
export interface Layout {
  /** Number of cells. */
  readonly size: number;
  /** Per cell: the scalar type stored there (undefined for union tag cells). */
  readonly cellType: readonly (Type | undefined)[];
  /**
   * Per cell: the index of the cell that stands for its *memory location* in the sequencing
   * rules (C11 3.14): adjacent non-zero-width bit-fields share one location, and every cell of
   * a union is one location (accessing any member touches the whole union).
   */
  readonly loc: Int32Array;
  /** Per cell: the enclosing unions, outermost first, as [tagCell, memberIndex] pairs; empty when none. */
  readonly unions: readonly (readonly (readonly [number, number])[])[];
  /** Whether any cell lies inside a union (fast path for objects without unions). */
  readonly hasUnions: boolean;
  /** Whether any cell holds a pointer (their zero values carry a provenance, so no shared template). */
  readonly hasPointers: boolean;
  /** Per union tag cell: [firstCell, endCell) of the union's member cells (the tag is at firstCell - 1). */
  readonly unionSpan: ReadonlyMap<number, readonly [number, number]>;
  /** Per union tag cell: the start cell of each member. */
  readonly memberStart: ReadonlyMap<number, readonly number[]>;
}

const layoutCache = new WeakMap<Type, Layout>();

/** Cell count of a type. */
export function cellCount(t: Type): number {
  return layoutOf(t).size;
}

/** The flattened layout of a type (cached per type object). */
export function layoutOf(t: Type): Layout {
  const cached = layoutCache.get(t);
  if (cached) return cached;
  const cellType: (Type | undefined)[] = [];
  const loc: number[] = [];
  const unions: (readonly (readonly [number, number])[])[] = [];
  const unionSpan = new Map<number, readonly [number, number]>();
  const memberStart = new Map<number, readonly number[]>();
  const add = (ct: Type | undefined, u: readonly (readonly [number, number])[], location?: number): void => {
    const i = cellType.length;
    cellType.push(ct);
    loc.push(location ?? i);
    unions.push(u);
  };
  const rec = (ty: Type, u: readonly (readonly [number, number])[], unionLoc: number | undefined): void => {
    switch (ty.kind) {
      case 'int':
      case 'float':
      case 'ptr':
        add(ty, u, unionLoc);
        return;
      case 'void':
        throw new Error('objects of type void have no layout');
      case 'array':
        for (let i = 0; i < ty.length; i++) rec(ty.of, u, unionLoc);
        return;
      case 'vector': {
        // One cell per lane, all one memory location: compilers may store a lane by rewriting
        // the whole vector, so two unsequenced lane stores conflict.
        const here = unionLoc ?? cellType.length;
        for (let i = 0; i < ty.lanes; i++) add(ty.of, u, here);
        return;
      }
      case 'struct': {
        let runStart: number | undefined;
        for (const f of ty.fields) {
          if (f.bits === 0) {
            runStart = undefined; // a :0 field ends the run of bit-fields sharing a location
            continue;
          }
          if (f.bits !== undefined) {
            const here = cellType.length;
            if (runStart === undefined) runStart = here;
            add(fieldExprType(ty, f), u, unionLoc ?? runStart);
          } else {
            runStart = undefined;
            rec(f.type, u, unionLoc);
          }
        }
        return;
      }
      case 'union': {
        const tag = cellType.length;
        add(undefined, u, unionLoc ?? tag);
        const here = unionLoc ?? tag;
        if (isPunUnion(ty)) {
          // Members that are the same bytes share their cells, which no member's tag guards.
          rec(ty.fields[0]!.type, u, here);
          unionSpan.set(tag, [tag + 1, cellType.length]);
          memberStart.set(
            tag,
            ty.fields.map(() => tag + 1),
          );
          return;
        }
        const starts: number[] = [];
        ty.fields.forEach((f, m) => {
          starts.push(cellType.length);
          const inner = [...u, [tag, m] as const];
          if (f.bits !== undefined) add(fieldExprType(ty, f), inner, here);
          else rec(f.type, inner, here);
        });
        unionSpan.set(tag, [tag + 1, cellType.length]);
        memberStart.set(tag, starts);
        return;
      }
    }
  };
  rec(t, [], undefined);
  const layout: Layout = {
    size: cellType.length,
    cellType,
    loc: Int32Array.from(loc),
    unions,
    hasUnions: unionSpan.size > 0,
    hasPointers: cellType.some((ct) => ct?.kind === 'ptr'),
    unionSpan,
    memberStart,
  };
  layoutCache.set(t, layout);
  return layout;
}

/** Whether values of this type are arrays of cells (records and vectors) rather than one cell. */
export function isMultiCell(t: Type): boolean {
  return isRecord(t) || t.kind === 'vector';
}

/** Cell offset of field `index` inside a record laid out from cell 0. */
export function fieldOffset(t: Type, index: number): number {
  if (!isRecord(t)) throw new Error('fieldOffset on a non-record');
  if (t.kind === 'union') {
    if (isPunUnion(t)) return 1;
    let off = 1; // the tag cell
    for (let i = 0; i < index; i++) off += fieldCells(t.fields[i]!);
    return off;
  }
  let off = 0;
  for (let i = 0; i < index; i++) off += fieldCells(t.fields[i]!);
  return off;
}

function fieldCells(f: { bits?: number; type: Type }): number {
  if (f.bits === 0) return 0;
  if (f.bits !== undefined) return 1;
  return cellCount(f.type);
}

/** A live or dead object. */
export class MemObject {
  cells: Cell[];
  alive = true;
  /** Lifetime counter: bumped when the object is reused for a new lifetime. */
  gen = 0;
  constructor(
    /** Unique within one run per lifetime; used as the access-log key. */
    public uid: number,
    readonly layout: Layout,
    /** Declaration id of the variable this object instantiates. */
    readonly decl: number,
    /** Whether the whole object is const (written only by its initialiser). */
    readonly isConst: boolean,
  ) {
    this.cells = new Array<Cell>(layout.size);
  }
}

/**
 * Sets every cell of an object from an image of its layout, copying into the object's own array
 * (a fresh copy only if that array has another length, which a layout's objects never have):
 * block locals are re-initialised at every entry, and a fresh array each time was a fifth of
 * the interpreter's allocation.
 */
export function setCells(o: MemObject, image: readonly Cell[]): void {
  const c = o.cells;
  const n = image.length;
  if (c.length !== n) {
    o.cells = image.slice();
    return;
  }
  for (let i = 0; i < n; i++) c[i] = image[i];
}

const zeroTemplates = new WeakMap<Layout, Cell[]>();

/** Fills an object's cells with zero values, as C does for objects of static storage duration. */
export function zeroFill(o: MemObject, nullOrigin: number): void {
  const { cellType, size, memberStart } = o.layout;
  if (!o.layout.hasPointers) {
    // Without pointers the zero image is the same for every object: copy a cached template.
    let tpl = zeroTemplates.get(o.layout);
    if (!tpl) {
      tpl = new Array<Cell>(size);
      for (let i = 0; i < size; i++) {
        const t = cellType[i];
        tpl[i] = t === undefined ? (memberStart.has(i) ? 0 : undefined) : zeroOf(t, nullOrigin);
      }
      zeroTemplates.set(o.layout, tpl);
    }
    setCells(o, tpl);
    return;
  }
  for (let i = 0; i < size; i++) {
    const t = cellType[i];
    if (t === undefined)
      o.cells[i] = memberStart.has(i) ? 0 : undefined; // union: first member active
    else o.cells[i] = zeroOf(t, nullOrigin);
  }
}

/** The zero value of a scalar type. */
export function zeroOf(t: Type, nullOrigin: number): Cell {
  switch (t.kind) {
    case 'int':
      return t.bits > 32 ? 0n : 0;
    case 'float':
      return 0;
    case 'ptr':
      return { obj: null, cell: 0, origin: nullOrigin, gen: 0 };
    default:
      throw new Error(`no zero value for ${t.kind}`);
  }
}

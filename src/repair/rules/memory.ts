import { C, type IntType } from '../../c/types.js';
import type { AssignExpr, Expr, FieldExpr, HashStmt, Stmt, VarDecl } from '../../ir/nodes.js';
import { isExpr } from '../../ir/nodes.js';
import {
  isRecord,
  namedFields,
  sameType,
  unqualified,
  type PointerT,
  type RecordT,
  type Type,
} from '../../ir/types.js';
import type { UBReport } from '../../interp/interpret.js';
import { zeroOf, type Editor } from '../edit.js';
import { repaired, type Repaired, type RepairState } from '../state.js';

/**
 * Memory and object UB: out-of-bounds indices, null or dangling pointers, uninitialised reads,
 * reads of an inactive union member, and writes to const objects.
 */

/**
 * `a[i]` out of bounds: a constant index is moved into range; any other index becomes `(uint32_t)(i) % len`.
 * The index of a computed goto, `goto *tbl[i]`, outside its table is repaired alike.
 */
export function repairOutOfBounds(ed: Editor, ub: UBReport): Repaired | undefined {
  const n = ed.find(ub.node);
  let len: number;
  let ix: Expr;
  if (n?.kind === 'index' && n.base.type.kind === 'array') [len, ix] = [n.base.type.length, n.index];
  else if (n?.kind === 'index' && n.base.type.kind === 'vector') [len, ix] = [n.base.type.lanes, n.index];
  else if (n?.kind === 'igoto') [len, ix] = [n.labels.length, n.index];
  else return undefined;
  if (ix.kind === 'const') {
    const v = (((ix.value as bigint) % BigInt(len)) + BigInt(len)) % BigInt(len);
    return repaired(
      ed.replace(ix.id, () => ed.b.lit(v, ix.type as IntType)),
      'clamp-constant-index',
    );
  }
  const wrapped = ed.b.bin('%', ed.b.cast(C.uint32, ix), ed.b.lit(len, C.uint32));
  return repaired(
    ed.replace(ix.id, () => wrapped),
    'wrap-index-modulo',
  );
}

/**
 * A bad pointer (null, or to a dead object): first re-point the expression that produced the
 * value (`(void*)0` or `&local`) at a global of the pointee type; if that keeps failing, replace
 * the dereference itself by such a global.
 */
export function repairPointer(ed: Editor, ub: UBReport, st: RepairState): Repaired | undefined {
  const n = ed.find(ub.node);
  if (!n || !isExpr(n)) return undefined;
  const origin = ub.detail?.pointerOrigin;
  const originNode = origin === undefined ? undefined : ed.find(origin);
  if (
    originNode &&
    (originNode.kind === 'null' || originNode.kind === 'addr') &&
    st.attempts(originNode.id) < st.rewritesPerSite
  ) {
    const pt = originNode.type as PointerT;
    // In a global's initialiser the target must be declared earlier in the file.
    const target = globalOfType(ed, pt.to, ed.enclosingGlobal(originNode.id));
    if (target) {
      st.inherit(n.id, originNode.id);
      return repaired(
        ed.replace(originNode.id, () => ed.b.addr(ed.b.v(target))),
        'repoint-to-global',
      );
    }
  }
  if (n.kind === 'deref') {
    const target = globalOfType(ed, n.type);
    if (target)
      return repaired(
        ed.replace(n.id, () => ed.b.v(target)),
        'replace-deref-with-global',
      );
  }
  if (n.type.kind === 'ptr') {
    const target = globalOfType(ed, n.type.to);
    const replacement = target ? ed.b.addr(ed.b.v(target)) : ed.b.nullptr(unqualified(n.type));
    return repaired(
      ed.replace(n.id, () => replacement),
      'replace-dangling-pointer',
    );
  }
  return undefined;
}

/**
 * A global whose type is exactly `t` (qualifiers may only be added by the pointer), created when
 * none exists. Const or volatile objects qualify only if the pointee type has those qualifiers.
 * With `before`, only globals declared before it qualify, and a new one is inserted before it.
 */
export function globalOfType(ed: Editor, t: Type, before?: VarDecl): VarDecl | undefined {
  if (t.kind === 'void' || t.kind === 'array') return undefined;
  const u = unqualified(t);
  const ok = (d: VarDecl): boolean =>
    sameType(unqualified(d.type), u) && (!d.type.const || !!t.const) && (!d.type.volatile || !!t.volatile);
  const all = ed.globals();
  const visible = before ? all.slice(0, all.indexOf(before)) : all;
  const found = visible.find(ok);
  if (found) return found;
  return ed.addGlobal(ed.b.global(`g_r${ed.b.nextId}`, u, defaultInit(ed, u)), before?.id);
}

function defaultInit(ed: Editor, t: Type): Expr | ReturnType<Editor['b']['list']> | undefined {
  switch (t.kind) {
    case 'int':
    case 'float':
      return ed.b.lit(t.kind === 'int' ? 1n : 1, t);
    case 'ptr':
      return ed.b.nullptr(t);
    default:
      return undefined; // aggregates of static storage start zeroed
  }
}

/**
 * An uninitialised read: the read becomes a zero of its type; a compound assignment or ++/--
 * reading an indeterminate object becomes a plain assignment; a function that ended without a
 * return gets one.
 */
export function repairUninitialised(ed: Editor, ub: UBReport): Repaired | undefined {
  const n = ed.find(ub.node);
  if (!n) return undefined;
  if (n.kind === 'func') {
    if (n.ret.kind === 'void') return undefined;
    const value =
      n.ret.kind === 'int' || n.ret.kind === 'ptr' || n.ret.kind === 'float' ? zeroOf(ed, n.ret) : undefined;
    if (!value) return undefined;
    return repaired(
      ed.replace(n.body.id, (o) => ({ ...(o as typeof n.body), stmts: [...n.body.stmts, ed.b.ret(value)] })),
      'add-missing-return',
    );
  }
  if (n.kind === 'assign' && n.op !== '=')
    return repaired(
      ed.replace(n.id, () => ed.b.assign(n.target, n.value)),
      'compound-to-plain-assign',
    );
  if (n.kind === 'incdec')
    return repaired(
      ed.replace(n.id, () => ed.b.assign(n.target, ed.b.lit(0))),
      'incdec-to-assign',
    );
  if (isExpr(n) && (n.type.kind === 'int' || n.type.kind === 'ptr' || n.type.kind === 'float')) {
    return repaired(
      ed.replace(n.id, () => zeroOf(ed, n.type)),
      'replace-uninitialised-read',
    );
  }
  if (isExpr(n) && n.type.kind === 'vector')
    return repaired(
      ed.replace(n.id, () => zeroOf(ed, n.type)),
      'replace-uninitialised-read',
    );
  return undefined;
}

/**
 * A read of a union member other than the one last stored. In a checksum statement the hash
 * switches to the active member; elsewhere the read becomes a constant.
 */
export function repairUnionRead(ed: Editor, ub: UBReport, st: RepairState): Repaired | undefined {
  const n = ed.find(ub.node);
  if (!n) return undefined;
  const stmt = ed.statementOf(n.id);
  const active = ub.detail?.activeMember;
  if (stmt?.kind === 'hash' && active !== undefined) {
    // Attempts are counted per union variable: switching creates new statements (new ids), and
    // the elements of an array of unions may each have a different active member.
    const site = -1 - rootDecl(stmt.value);
    if (st.attempts(site) < 2) {
      const switched = switchHashedMember(ed, stmt, ub.detail?.member ?? -1, active);
      if (switched) {
        st.touch(site);
        return switched;
      }
    }
  }
  if (stmt?.kind === 'hash')
    return repaired(
      ed.replace(stmt.id, () => ed.b.block([])),
      'drop-union-hash',
    );
  if (n.kind === 'assign' && n.op !== '=')
    return repaired(
      ed.replace(n.id, () => ed.b.assign(n.target, n.value)),
      'compound-to-plain-assign',
    );
  if (n.kind === 'incdec')
    return repaired(
      ed.replace(n.id, () => ed.b.assign(n.target, ed.b.lit(0))),
      'incdec-to-assign',
    );
  if (isExpr(n) && (n.type.kind === 'int' || n.type.kind === 'ptr'))
    return repaired(
      ed.replace(n.id, () => zeroOf(ed, n.type)),
      'replace-inactive-union-read',
    );
  if (isExpr(n) && n.type.kind === 'vector')
    return repaired(
      ed.replace(n.id, () => zeroOf(ed, n.type)),
      'replace-inactive-union-read',
    );
  if (isExpr(n) && isRecord(n.type)) {
    const g = globalOfType(ed, n.type);
    if (g)
      return repaired(
        ed.replace(n.id, () => ed.b.v(g)),
        'replace-inactive-union-read',
      );
  }
  return undefined;
}

/** The variable an access path starts from. */
function rootDecl(e: Expr): number {
  let x = e;
  for (;;) {
    if (x.kind === 'field' || x.kind === 'index') x = x.base;
    else if (x.kind === 'deref') x = x.ptr;
    else break;
  }
  return x.kind === 'var' ? x.decl : x.id;
}

/** Replaces a checksum statement reading union member `member` by statements hashing member `active`. */
function switchHashedMember(ed: Editor, h: HashStmt, member: number, active: number): Repaired | undefined {
  let unionAccess: FieldExpr | undefined;
  const find = (e: Expr): void => {
    if (e.kind === 'field' && e.base.type.kind === 'union' && e.field === member && !unionAccess) unionAccess = e;
    if (e.kind === 'field') find(e.base);
    else if (e.kind === 'index') find(e.base);
  };
  find(h.value);
  if (!unionAccess) return undefined;
  const u = unionAccess.base.type as RecordT;
  if (active < 0 || active >= u.fields.length) return undefined;
  const access = ed.b.fld(ed.clone(unionAccess.base), active);
  const locals: VarDecl[] = [];
  const stmts = hashLeaves(ed, access, locals);
  return repaired(
    ed.replace(h.id, () => ed.b.block(stmts, locals)),
    'hash-active-union-member',
  );
}

/** Statements hashing every scalar inside `e` (arrays by loops over fresh locals). */
function hashLeaves(ed: Editor, e: Expr, locals: VarDecl[]): Stmt[] {
  const b = ed.b;
  const t = e.type;
  switch (t.kind) {
    case 'int':
    case 'float':
      return [b.hash(e)];
    case 'array':
    case 'vector': {
      const i = b.local(`i_r${b.nextId}`, C.int32);
      locals.push(i);
      const body = hashLeaves(ed, b.idx(e, b.v(i)), locals);
      return body.length
        ? [
            b.for(
              b.assign(b.v(i), b.lit(0)),
              b.bin('<', b.v(i), b.lit(t.kind === 'array' ? t.length : t.lanes)),
              b.incdec('++', b.v(i), false),
              b.block(body),
            ),
          ]
        : [];
    }
    case 'struct':
      return namedFields(t).flatMap(({ index }) => hashLeaves(ed, b.fld(ed.clone(e), index), locals));
    case 'union':
      return hashLeaves(ed, b.fld(e, 0), locals);
    default:
      return [];
  }
}

/** A write to a const object (only reachable through a rewrite that lost a qualifier): drop the store. */
export function repairConstWrite(ed: Editor, ub: UBReport): Repaired | undefined {
  const n = ed.find(ub.node);
  if (!n) return undefined;
  if (n.kind === 'assign')
    return repaired(
      ed.replace(n.id, () => (n as AssignExpr).value),
      'drop-const-store',
    );
  if (n.kind === 'incdec')
    return repaired(
      ed.replace(n.id, () => n.target),
      'drop-const-store',
    );
  return undefined;
}

//! Tile expressions: the per-element computation of a fused elementwise layer.
//!
//! A fused chain is evaluated one tile (up to [`TILE`] elements of a contiguous run
//! of the output block) at a time: every operation is a tight, monomorphized loop
//! over tile buffers that stay in L1 (see [`crate::ops::elementwise::loops`]), so a
//! chain of N operations makes one pass over memory instead of N, with one dynamic
//! call per operation per tile, never per element. An operation whose operand has
//! its own element type evaluates the operand into its own output tile and maps it
//! there, so a chain of one type works in a single tile buffer.

use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::element::{DType, Element};
use crate::ops::elementwise::loops::{self, TileKernel, TileKernel2};

/// Elements per tile: small enough for a few tile buffers to sit in L1.
pub(crate) const TILE: usize = 512;

/// Where one leaf's values for the current run of the output come from.
#[derive(Clone, Copy)]
pub(crate) struct LeafRow {
    /// Start of the leaf block's memory (elements of the leaf's type).
    pub ptr: *const u8,
    /// Elements in that memory.
    pub len: usize,
    pub dtype: DType,
    /// Element offset of the current run's first element.
    pub offset: isize,
    /// Element stride along the run (0 when the leaf is broadcast along it).
    pub stride: isize,
}

/// The leaves at the current position.
pub(crate) struct TileCtx<'a> {
    pub leaves: &'a [LeafRow],
    /// Offset of the tile within the current run.
    pub pos: usize,
}

/// What a leaf is replaced with when expressions are re-indexed or fused.
pub(crate) enum Rebind {
    /// Refer to another leaf number.
    Index(usize),
    /// Inline this expression (an `Arc<dyn TileExpr<U>>` for the leaf's type `U`).
    Inline(Arc<dyn Any + Send + Sync>),
}

/// An expression producing `T`s one tile at a time.
pub(crate) trait TileExpr<T: Element>: Send + Sync + 'static {
    /// Evaluates the tile at `ctx.pos` (`out.len()` elements) into `out`.
    fn eval(&self, ctx: &TileCtx<'_>, out: &mut [T]);
    /// The tile's `n` values borrowed without a buffer, where they already sit
    /// contiguously in memory (a unit-stride leaf); lets parents read them
    /// where they are.
    #[inline]
    fn direct<'s>(&'s self, _ctx: &TileCtx<'s>, _n: usize) -> Option<&'s [T]> {
        None
    }
    /// Its value, when it is a constant (a scalar operand), so that a parent
    /// applies it as a scalar instead of reading a tile of copies.
    #[inline]
    fn constant(&self) -> Option<T> {
        None
    }
    /// The same expression with every leaf replaced as `map` says.
    fn rebind(&self, map: &dyn Fn(usize) -> Rebind) -> Arc<dyn TileExpr<T>>;
    /// A readable form, e.g. `add(sqrt(x0), 2)`.
    fn describe(&self) -> String;
    /// The expression in CUDA C++ (leaf `k` read as `xk[ok]`), or `None` when
    /// some part has no exact device form (see [`crate::ops::elementwise::cuda`]).
    fn cuda(&self) -> Option<String> {
        None
    }
    /// Levels of nesting (a leaf or constant is 1). Each level holds up to three
    /// tile buffers on the stack while it evaluates, so fusion bounds it.
    fn depth(&self) -> usize;
}

pub(crate) type Expr<T> = Arc<dyn TileExpr<T>>;

/// Leaf `index`: reads the leaf block's values.
pub(crate) struct Leaf<T> {
    pub index: usize,
    _t: PhantomData<fn() -> T>,
}

pub(crate) fn leaf<T: Element>(index: usize) -> Expr<T> {
    Arc::new(Leaf::<T> { index, _t: PhantomData })
}

impl<T: Element> TileExpr<T> for Leaf<T> {
    #[inline]
    fn eval(&self, ctx: &TileCtx<'_>, out: &mut [T]) {
        let row = &ctx.leaves[self.index];
        // The kernel builds a LeafRow from a block downcast by this leaf's dtype, so
        // the memory holds `len` values of type T; checked here once per tile.
        assert_eq!(row.dtype, T::DTYPE, "leaf {} element type", self.index);
        let data: &[T] = unsafe { std::slice::from_raw_parts(row.ptr as *const T, row.len) };
        let n = out.len();
        let start = row.offset + ctx.pos as isize * row.stride;
        match row.stride {
            1 => out.copy_from_slice(&data[start as usize..start as usize + n]),
            0 => out.fill(data[start as usize]),
            s => {
                // A strided leaf (a fused transpose): check the run's two ends once,
                // then gather without a bounds check per element.
                let last = start + (n as isize - 1) * s;
                assert!(
                    start >= 0 && last >= 0 && (start.max(last) as usize) < data.len(),
                    "strided leaf run in bounds"
                );
                let base = data.as_ptr();
                for (i, b) in out.iter_mut().enumerate() {
                    // SAFETY: start + i * s lies between the two checked ends.
                    *b = unsafe { *base.offset(start + i as isize * s) };
                }
            }
        }
    }

    #[inline]
    fn direct<'s>(&'s self, ctx: &TileCtx<'s>, n: usize) -> Option<&'s [T]> {
        let row = &ctx.leaves[self.index];
        if row.stride != 1 {
            return None;
        }
        assert_eq!(row.dtype, T::DTYPE, "leaf {} element type", self.index);
        // SAFETY: as in `eval`.
        let data: &'s [T] = unsafe { std::slice::from_raw_parts(row.ptr as *const T, row.len) };
        let start = (row.offset + ctx.pos as isize) as usize;
        Some(&data[start..start + n])
    }

    fn rebind(&self, map: &dyn Fn(usize) -> Rebind) -> Expr<T> {
        match map(self.index) {
            Rebind::Index(i) => leaf::<T>(i),
            Rebind::Inline(any) => {
                any.downcast_ref::<Expr<T>>().expect("an inlined expression has the leaf's element type").clone()
            }
        }
    }

    fn describe(&self) -> String {
        format!("x{}", self.index)
    }
    fn cuda(&self) -> Option<String> {
        Some(format!("x{0}[o{0}]", self.index))
    }
    fn depth(&self) -> usize {
        1
    }
}

/// A constant (a scalar operand).
pub(crate) struct Const<T>(pub T);

impl<T: Element> TileExpr<T> for Const<T> {
    #[inline]
    fn eval(&self, _: &TileCtx<'_>, out: &mut [T]) {
        out.fill(self.0);
    }
    #[inline]
    fn constant(&self) -> Option<T> {
        Some(self.0)
    }
    fn rebind(&self, _: &dyn Fn(usize) -> Rebind) -> Expr<T> {
        Arc::new(Const(self.0))
    }
    fn describe(&self) -> String {
        format!("{}", self.0)
    }
    fn cuda(&self) -> Option<String> {
        crate::ops::elementwise::cuda::literal(self.0)
    }
    fn depth(&self) -> usize {
        1
    }
}

/// Child `$e`'s `$n` values: `$direct` (its values borrowed where they are)
/// when there, else evaluated into a tile buffer declared (and so initialized)
/// only then.
macro_rules! child {
    ($e:expr, $direct:expr, $ctx:expr, $n:expr, $buf:ident) => {
        match $direct {
            Some(v) => v,
            None => {
                $buf = [Default::default(); TILE];
                $e.eval($ctx, &mut $buf[..$n]);
                &$buf[..$n]
            }
        }
    };
}

/// `out[i] = f(a[i])` over the tile: `a` read where it is, or evaluated into
/// `out` itself when it has the output's type, else into a tile buffer.
#[inline]
fn map_child<A: Element, O: Element, F: Fn(A) -> O>(a: &dyn TileExpr<A>, ctx: &TileCtx<'_>, out: &mut [O], f: &F) {
    map_child_by(a, ctx, out, |o, x| loops::map1(o, x, f), |own| loops::map1_in_place(own, f))
}

/// [`map_child`] through a kernel's own tile loops.
#[inline]
fn map_child_tiled<A: Element, O: Element>(a: &dyn TileExpr<A>, ctx: &TileCtx<'_>, out: &mut [O], k: TileKernel<A, O>) {
    map_child_by(a, ctx, out, k.map, k.in_place)
}

/// `map(out, a)` over the tile, or `in_place(a)` where `a` is evaluated into
/// `out` itself (as [`map_child`]).
#[inline]
fn map_child_by<A: Element, O: Element>(
    a: &dyn TileExpr<A>,
    ctx: &TileCtx<'_>,
    out: &mut [O],
    map: impl FnOnce(&mut [O], &[A]),
    in_place: impl FnOnce(&mut [A]),
) {
    let n = out.len();
    let direct = a.direct(ctx, n);
    if direct.is_none()
        && let Some(own) = loops::as_same::<O, A>(out)
    {
        a.eval(ctx, own);
        return in_place(own);
    }
    let mut ta: [A; TILE];
    map(out, child!(a, direct, ctx, n, ta))
}

/// How a unary layer maps a tile.
pub(crate) enum UnaryMap<A, O, F> {
    /// A function of one element, inlined into the shared tile loops.
    Element(Arc<F>),
    /// A kernel's own tile loops ([`loops::tile_kernel`]).
    Tiled(TileKernel<A, O>),
}

impl<A, O, F> Clone for UnaryMap<A, O, F> {
    fn clone(&self) -> Self {
        match self {
            UnaryMap::Element(f) => UnaryMap::Element(f.clone()),
            UnaryMap::Tiled(k) => UnaryMap::Tiled(*k),
        }
    }
}

/// A function of `a`, element by element.
pub(crate) struct Unary<A, O, F> {
    pub name: &'static str,
    pub a: Expr<A>,
    pub map: UnaryMap<A, O, F>,
    /// Its C form, when it has one (a closure's captured scalar is in it).
    pub cuda: Option<crate::ops::elementwise::cuda::CudaForm>,
    pub _t: PhantomData<fn() -> O>,
}

impl<A: Element, O: Element, F: Fn(A) -> O + Send + Sync + 'static> TileExpr<O> for Unary<A, O, F> {
    #[inline]
    fn eval(&self, ctx: &TileCtx<'_>, out: &mut [O]) {
        match &self.map {
            UnaryMap::Element(f) => map_child(&*self.a, ctx, out, &**f),
            UnaryMap::Tiled(k) => map_child_tiled(&*self.a, ctx, out, *k),
        }
    }
    fn rebind(&self, map: &dyn Fn(usize) -> Rebind) -> Expr<O> {
        Arc::new(Unary {
            name: self.name,
            a: self.a.rebind(map),
            map: self.map.clone(),
            cuda: self.cuda.clone(),
            _t: PhantomData,
        })
    }
    fn describe(&self) -> String {
        format!("{}({})", self.name, self.a.describe())
    }
    fn cuda(&self) -> Option<String> {
        Some(self.cuda.as_ref()?.apply(&self.a.cuda()?))
    }
    fn depth(&self) -> usize {
        1 + self.a.depth()
    }
}

/// How a binary layer maps a tile.
pub(crate) enum BinaryMap<A, B, O, F> {
    /// A function of two elements, inlined into the shared tile loops.
    Element(Arc<F>),
    /// A kernel's own tile loops ([`loops::tile_kernel2`]).
    Tiled(TileKernel2<A, B, O>),
}

impl<A, B, O, F> Clone for BinaryMap<A, B, O, F> {
    fn clone(&self) -> Self {
        match self {
            BinaryMap::Element(f) => BinaryMap::Element(f.clone()),
            BinaryMap::Tiled(k) => BinaryMap::Tiled(*k),
        }
    }
}

/// `f(a, b)` element by element.
pub(crate) struct Binary<A, B, O, F> {
    pub name: &'static str,
    pub a: Expr<A>,
    pub b: Expr<B>,
    pub map: BinaryMap<A, B, O, F>,
    /// Whether `f` converts both operands to `O` first (NumPy's promotion),
    /// so that its C form is the operation on `O` of the converted operands.
    pub promoted: bool,
    pub _t: PhantomData<fn() -> O>,
}

impl<A: Element, B: Element, O: Element, F: Fn(A, B) -> O + Send + Sync + 'static> Binary<A, B, O, F> {
    /// `f` of the two children through the shared loops, a scalar operand
    /// captured in the closure.
    #[inline]
    fn eval_element(&self, ctx: &TileCtx<'_>, out: &mut [O], f: &F) {
        let n = out.len();
        if let Some(y) = self.b.constant() {
            return map_child(&*self.a, ctx, out, &|x| f(x, y));
        }
        if let Some(x) = self.a.constant() {
            return map_child(&*self.b, ctx, out, &|y| f(x, y));
        }
        let (da, db) = (self.a.direct(ctx, n), self.b.direct(ctx, n));
        let (mut ta, mut tb): ([A; TILE], [B; TILE]);
        if da.is_none()
            && let Some(own) = loops::as_same::<O, A>(out)
        {
            self.a.eval(ctx, own);
            return loops::map2_in_place(own, child!(self.b, db, ctx, n, tb), f);
        }
        if db.is_none()
            && let Some(own) = loops::as_same::<O, B>(out)
        {
            let a = child!(self.a, da, ctx, n, ta);
            self.b.eval(ctx, own);
            return loops::map2_in_place_second(a, own, f);
        }
        loops::map2(out, child!(self.a, da, ctx, n, ta), child!(self.b, db, ctx, n, tb), f)
    }

    /// The kernel's own loops over the two children.
    #[inline]
    fn eval_tiled(&self, ctx: &TileCtx<'_>, out: &mut [O], k: TileKernel2<A, B, O>) {
        if let Some(y) = self.b.constant() {
            return map_child_by(
                &*self.a,
                ctx,
                out,
                |o, a| (k.with_second)(o, a, y),
                |own| (k.with_second_in_place)(own, y),
            );
        }
        if let Some(x) = self.a.constant() {
            return map_child_by(
                &*self.b,
                ctx,
                out,
                |o, b| (k.with_first)(o, x, b),
                |own| (k.with_first_in_place)(x, own),
            );
        }
        let n = out.len();
        let (da, db) = (self.a.direct(ctx, n), self.b.direct(ctx, n));
        let (mut ta, mut tb): ([A; TILE], [B; TILE]);
        if da.is_none()
            && let Some(own) = loops::as_same::<O, A>(out)
        {
            self.a.eval(ctx, own);
            return (k.in_place_first)(own, child!(self.b, db, ctx, n, tb));
        }
        if db.is_none()
            && let Some(own) = loops::as_same::<O, B>(out)
        {
            let a = child!(self.a, da, ctx, n, ta);
            self.b.eval(ctx, own);
            return (k.in_place_second)(a, own);
        }
        (k.map)(out, child!(self.a, da, ctx, n, ta), child!(self.b, db, ctx, n, tb))
    }
}

impl<A: Element, B: Element, O: Element, F: Fn(A, B) -> O + Send + Sync + 'static> TileExpr<O> for Binary<A, B, O, F> {
    #[inline]
    fn eval(&self, ctx: &TileCtx<'_>, out: &mut [O]) {
        match &self.map {
            BinaryMap::Element(f) => self.eval_element(ctx, out, f),
            BinaryMap::Tiled(k) => self.eval_tiled(ctx, out, *k),
        }
    }
    fn rebind(&self, map: &dyn Fn(usize) -> Rebind) -> Expr<O> {
        Arc::new(Binary {
            name: self.name,
            a: self.a.rebind(map),
            b: self.b.rebind(map),
            map: self.map.clone(),
            promoted: self.promoted,
            _t: PhantomData,
        })
    }
    fn describe(&self) -> String {
        format!("{}({}, {})", self.name, self.a.describe(), self.b.describe())
    }
    fn cuda(&self) -> Option<String> {
        use crate::ops::elementwise::cuda::{binary_expr, converted};
        let (a, b) = (self.a.cuda()?, self.b.cuda()?);
        if !self.promoted {
            return binary_expr::<A, B>(self.name, &a, &b);
        }
        binary_expr::<O, O>(self.name, &converted::<A, O>(a)?, &converted::<B, O>(b)?)
    }
    fn depth(&self) -> usize {
        1 + self.a.depth().max(self.b.depth())
    }
}

/// `f(a, b, c)` element by element (`where`, `clip` with array bounds).
pub(crate) struct Ternary<A, B, C, O, F> {
    pub name: &'static str,
    pub a: Expr<A>,
    pub b: Expr<B>,
    pub c: Expr<C>,
    pub f: Arc<F>,
    pub _t: PhantomData<fn() -> O>,
}

impl<A: Element, B: Element, C: Element, O: Element, F: Fn(A, B, C) -> O + Send + Sync + 'static> TileExpr<O>
    for Ternary<A, B, C, O, F>
{
    #[inline]
    fn eval(&self, ctx: &TileCtx<'_>, out: &mut [O]) {
        let n = out.len();
        let (mut ta, mut tb, mut tc): ([A; TILE], [B; TILE], [C; TILE]);
        let a = child!(self.a, self.a.direct(ctx, n), ctx, n, ta);
        let b = child!(self.b, self.b.direct(ctx, n), ctx, n, tb);
        let c = child!(self.c, self.c.direct(ctx, n), ctx, n, tc);
        loops::map3(out, a, b, c, &*self.f)
    }
    fn rebind(&self, map: &dyn Fn(usize) -> Rebind) -> Expr<O> {
        Arc::new(Ternary {
            name: self.name,
            a: self.a.rebind(map),
            b: self.b.rebind(map),
            c: self.c.rebind(map),
            f: self.f.clone(),
            _t: PhantomData,
        })
    }
    fn describe(&self) -> String {
        format!("{}({}, {}, {})", self.name, self.a.describe(), self.b.describe(), self.c.describe())
    }
    fn cuda(&self) -> Option<String> {
        // `where` is the only ternary with a device form.
        (self.name == "where"
            && A::DTYPE == crate::element::DType::Bool
            && B::DTYPE == O::DTYPE
            && C::DTYPE == O::DTYPE)
            .then(|| Some(format!("({} ? {} : {})", self.a.cuda()?, self.b.cuda()?, self.c.cuda()?)))?
    }
    fn depth(&self) -> usize {
        1 + self.a.depth().max(self.b.depth()).max(self.c.depth())
    }
}

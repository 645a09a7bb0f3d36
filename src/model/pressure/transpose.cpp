#include "model/pressure/transpose.h"

#include <stdexcept>
#include <utility>

namespace squall {

PencilStep PencilStep::reversed() const {
    PencilStep r = *this;
    std::swap(r.src, r.dst);
    return r;
}

PencilCopy PencilStep::own() const {
    return {src, dst, n0, n1, n2, 1, me, -1};
}

namespace {
// Block q of a packed buffer, element (a, b, c) at q*block + a + n0*(b + n1*c).
PencilMap packed_map(const PencilStep& s) {
    return {0, s.block(), 1, s.n0, long(s.n0) * s.n1};
}
} // namespace

PencilCopy PencilStep::pack_others() const {
    return {src, packed_map(*this), n0, n1, n2, nq - 1, 0, me};
}

PencilCopy PencilStep::unpack_others() const {
    return {packed_map(*this), dst, n0, n1, n2, nq - 1, 0, me};
}

PencilLayout::PencilLayout(const GridDims& d, const Decomposition& decomp) {
    const int npx = decomp.npx, npy = decomp.npy;
    itot = d.itot;
    jtot = d.jtot;
    ktot = d.ktot;
    imax = d.imax;
    jmax = d.jmax;
    if (itot % npx || jtot % npy || ktot % npx || itot % npy || jtot % npx)
        throw std::invalid_argument("pressure transposes: grid does not divide over the ranks");
    kblk = ktot / npx;
    iblk = itot / npy;
    jblk = jtot / npx;
    i0 = decomp.py * iblk;
    j0 = decomp.px * jblk;
    ncol = long(iblk) * jblk;
    nlocal = ncol * ktot;
    distributed = npx > 1 || npy > 1;

    // The four layouts as maps of (block q, a, b, c); q picks the block of the axis that
    // the transpose splits.
    auto zcol = [&](int kb) -> PencilMap {
        return {long(d.istart) * d.ii + long(d.jstart) * d.jj + long(d.kstart) * d.kk,
                long(kb) * d.kk, d.ii, d.jj, d.kk};
    };
    auto xpencil = [&](int blk) -> PencilMap { // (q, i, j, kl)
        return {0, blk, 1, itot, long(itot) * jmax};
    };
    auto ypencil = [&](int blk) -> PencilMap { // (q, il, j, kl)
        return {0, blk, jtot, 1, long(jtot) * iblk};
    };
    const PencilMap zpencil{0, ncol * kblk, 1, iblk, ncol}; // (q, il, jl, kl)

    // z-column <-> x-pencil: block (i, j, kl) = my i block, my j block, k block q.
    zcol_x = {decomp.comm_x, npx, decomp.px, imax, jmax, kblk, zcol(kblk), xpencil(imax)};
    // x-pencil <-> y-pencil: block (il, j, kl) = i block q, my j block, my k block.
    x_y = {decomp.comm_y, npy, decomp.py, iblk, jmax, kblk, xpencil(iblk), ypencil(jmax)};
    // y-pencil <-> z-pencil: block (il, jl, kl) = my i block, j block q, k block q'.
    y_z = {decomp.comm_x, npx, decomp.px, iblk, jblk, kblk, ypencil(jblk), zpencil};
}

template <typename T>
PencilTransposer<T>::PencilTransposer(const GridDims& d, const Decomposition& decomp)
    : PencilLayout(d, decomp) {
    // Staging buffers only when some exchange really crosses ranks.
    if (distributed) {
        send_.resize(std::size_t(nlocal));
        recv_.resize(std::size_t(nlocal));
    }
}

template class PencilTransposer<float>;
template class PencilTransposer<double>;

} // namespace squall

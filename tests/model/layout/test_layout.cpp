// The aligned layout: every row's first interior point sits on a row_align boundary of
// the allocation, rows are padded by less than row_align, and the accessors agree with
// the raw index.
#include "model/field.h"
#include "model/grid.h"

#include <gtest/gtest.h>

using namespace squall;

namespace {

Config cube(int itot, int jtot, int ktot) {
    Config cfg;
    cfg.grid.itot = itot;
    cfg.grid.jtot = jtot;
    cfg.grid.ktot = ktot;
    cfg.grid.xsize = cfg.grid.ysize = cfg.grid.zsize = 1.0;
    return cfg;
}

} // namespace

TEST(Layout, InteriorRowsStartAligned) {
    for (auto [itot, npx] : {std::pair{4, 1}, {37, 1}, {48, 2}, {64, 4}, {250, 2}, {512, 1}}) {
        const Config cfg = cube(itot, 6, 5);
        const GridDims d = Grid<double>::make(cfg, npx, 1, 0, 0).d;
        SCOPED_TRACE(testing::Message() << "itot " << itot << " npx " << npx);
        EXPECT_GE(d.jj, d.icells);
        EXPECT_LT(d.jj, d.icells + row_align);
        EXPECT_EQ(d.kk, long(d.jj) * d.jcells);
        EXPECT_EQ(d.ncells, long(d.kk) * d.kcells);
        EXPECT_GE(d.pad, 0);
        EXPECT_LT(d.pad, row_align);
        // Offset from the allocation start of (istart, j, k) for every row.
        for (int k = 0; k < d.kcells; ++k)
            for (int j = 0; j < d.jcells; ++j)
                EXPECT_EQ((d.pad + d.istart + long(j) * d.jj + long(k) * d.kk) % row_align, 0)
                    << "row j=" << j << " k=" << k;
    }
}

TEST(Layout, FieldAccessorsUseThePaddedIndex) {
    const GridDims d = Grid<float>::make(cube(10, 4, 3), 1, 1, 0, 0).d;
    Field3d<float> f(d);
    EXPECT_EQ(f.size(), std::size_t(d.ncells));
    for (int k = 0; k < d.kcells; ++k)
        for (int j = 0; j < d.jcells; ++j)
            for (int i = 0; i < d.icells; ++i) f(i, j, k) = float(i + 100 * j + 10000 * k);
    const float* p = f.host();
    for (int k = 0; k < d.kcells; ++k)
        for (int j = 0; j < d.jcells; ++j)
            for (int i = 0; i < d.icells; ++i)
                ASSERT_EQ(p[i + j * d.jj + k * d.kk], float(i + 100 * j + 10000 * k));
    // data() is host() on a CPU field, both at index 0 past the leading pad.
    EXPECT_EQ(f.data(), f.host());
    EXPECT_EQ(Field3d<float>().size(), 0u);
}

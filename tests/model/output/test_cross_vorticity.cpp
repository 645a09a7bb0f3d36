// Derived cross-section fields: the vorticity components of an analytic velocity field on
// a stretched grid, read back from the written files, converge at second order at the
// coordinates the files give them (each component's own staggered axes, attached as
// dimension scales).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>

#include "cross_test_util.h"
#include "model/core/output.h"

namespace {

using namespace squall;
using namespace squall::cross_test;

// Periodic in x and y over the domain, smooth in z; the curl by hand.
struct Flow {
    static constexpr double lx = 2.0, ly = 1.5, lz = 1.0;
    static constexpr double kx = 2 * std::numbers::pi / lx, ky = 4 * std::numbers::pi / ly,
                            kz = 2.5;
    static double u(double x, double y, double z) {
        return std::sin(kx * x) * std::sin(ky * y) * std::cos(kz * z);
    }
    static double v(double x, double y, double z) {
        return std::cos(kx * x) * std::cos(ky * y) * std::sin(kz * z);
    }
    static double w(double x, double y, double z) {
        return std::cos(kx * x) * std::sin(ky * y) * std::sin(kz * z);
    }
    // dw/dy - dv/dz, du/dz - dw/dx, dv/dx - du/dy
    static double vort(int c, double x, double y, double z) {
        const double sx = std::sin(kx * x), cx = std::cos(kx * x), sy = std::sin(ky * y),
                     cy = std::cos(ky * y), sz = std::sin(kz * z), cz = std::cos(kz * z);
        if (c == 0) return ky * cx * cy * sz - kz * cx * cy * cz;
        if (c == 1) return -kz * sx * sy * sz + kx * sx * sy * sz;
        return -kx * sx * cy * sz - ky * sx * cy * cz;
    }
};

const char* const kComponents[3] = {"vort_x", "vort_y", "vort_z"};
// Each component's (z, y, x) axes: the edge where it needs no interpolation.
const char* const kAxes[3][3] = {{"zh", "yh", "x"}, {"zh", "y", "xh"}, {"z", "yh", "xh"}};

Config stretched_case(int n, const std::string& dir) {
    Config cfg;
    cfg.name = "vort";
    cfg.grid.itot = n;
    cfg.grid.jtot = n;
    cfg.grid.ktot = n;
    cfg.grid.xsize = Flow::lx;
    cfg.grid.ysize = Flow::ly;
    cfg.grid.zsize = Flow::lz;
    cfg.grid.stretch = "tanh"; // the lowest cells 14 times thinner than the highest
    cfg.grid.stretch_factor = 2.0;
    cfg.output_dir = dir;
    cfg.overwrite = true;
    cfg.cross.every = 1;
    cfg.cross.fields = {"vort_x", "vort_y", "vort_z", "w2"};
    cfg.cross.xy = {0.0, 0.37, 1.0}; // both walls and one interior height
    cfg.cross.xz = {0.6};
    cfg.cross.yz = {1.1};
    return cfg;
}

// The analytic velocities at every point of the local arrays, ghost cells included.
template <typename T>
void fill_flow(const Grid<T>& g, Fields<T>& f) {
    const auto& d = g.d;
    for (int k = 0; k < d.kcells; ++k)
        for (int j = 0; j < d.jcells; ++j)
            for (int i = 0; i < d.icells; ++i) {
                f.u(i, j, k) = T(Flow::u(g.xh[i], g.y[j], g.z[k]));
                f.v(i, j, k) = T(Flow::v(g.x[i], g.yh[j], g.z[k]));
                f.w(i, j, k) = T(Flow::w(g.x[i], g.y[j], g.zh[k]));
            }
}

struct Errors {
    double max[3] = {0, 0, 0}; // per component, over every section, relative to kx + ky + kz
    double dz_ratio = 0;       // largest / smallest face spacing in the yz file
};

// One sample of the flow on an n^3 stretched grid, written and read back: checks every
// file's axes and returns the largest error of each component against the analytic curl
// at the coordinates the file gives it.
template <typename T>
Errors run_case(int n) {
    const std::string dir = scratch_dir() + "/n" + std::to_string(n) + "_" + precision_name<T>();
    std::filesystem::create_directories(dir);
    const Config cfg = stretched_case(n, dir);
    const Grid<T> g = Grid<T>::make(cfg, 1, 1, 0, 0);
    const Decomposition dc = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    Fields<T> f(g.d, false, false, false, false, false);
    fill_flow(g, f);
    {
        Output<T> out(cfg, g, f, dc);
        out.create();
        out.cross(0.0);
    } // closes the files

    const double dx = Flow::lx / n, dy = Flow::ly / n;
    const double scale = Flow::kx + Flow::ky + Flow::kz;
    Errors e;
    for (const char* o : {"xy", "xz", "yz"}) {
        const std::string path = dir + "/vort.cross_" + o + ".h5";
        SCOPED_TRACE(path);
        std::map<std::string, std::vector<double>> axis;
        for (const char* a : {"x", "xh", "y", "yh", "z", "zh"}) axis[a] = read(path, a).data;
        // Horizontal axes independently of the model: all of them, or the one selected.
        auto expect_axis = [&](const std::string& a, double h, double shift, double pos) {
            std::vector<double> want;
            for (int i = 0; i < n; ++i) want.push_back((i + shift) * h);
            if (pos >= 0) want = {nearest(want, pos)};
            ASSERT_EQ(axis[a].size(), want.size()) << a;
            for (std::size_t i = 0; i < want.size(); ++i)
                EXPECT_NEAR(axis[a][i], want[i], 1e-12) << a << "[" << i << "]";
        };
        const std::string orient = o;
        expect_axis("x", dx, 0.5, orient == "yz" ? 1.1 : -1);
        expect_axis("xh", dx, 0.0, orient == "yz" ? 1.1 : -1);
        expect_axis("y", dy, 0.5, orient == "xz" ? 0.6 : -1);
        expect_axis("yh", dy, 0.0, orient == "xz" ? 0.6 : -1);
        // Heights: the grid's centres and faces, or the nearest to each xy height.
        std::vector<double> zc, zf;
        for (int k = g.d.kstart; k < g.d.kend; ++k) zc.push_back(g.z[k]);
        for (int k = g.d.kstart; k <= g.d.kend; ++k) zf.push_back(g.zh[k]);
        if (orient == "xy") {
            std::vector<double> a, b;
            for (double p : cfg.cross.xy) a.push_back(nearest(zc, p)), b.push_back(nearest(zf, p));
            zc = a, zf = b;
            EXPECT_EQ(axis["zh"].front(), 0.0);
            EXPECT_NEAR(axis["zh"].back(), Flow::lz, 1e-12);
        }
        EXPECT_EQ(axis["z"], zc);
        EXPECT_EQ(axis["zh"], zf);
        if (orient == "yz") {
            const auto& zh = axis["zh"];
            double lo = 1e30, hi = 0;
            for (std::size_t k = 1; k < zh.size(); ++k)
                lo = std::min(lo, zh[k] - zh[k - 1]), hi = std::max(hi, zh[k] - zh[k - 1]);
            e.dz_ratio = hi / lo;
        }

        for (int c = 0; c < 3; ++c) {
            const std::string name = kComponents[c];
            EXPECT_TRUE(attached(path, name, "time", 0)) << name;
            for (unsigned dim = 0; dim < 3; ++dim)
                EXPECT_TRUE(attached(path, name, kAxes[c][dim], dim + 1))
                    << name << " dimension " << dim + 1 << " is not " << kAxes[c][dim];
            EXPECT_EQ(read_string_attr(path, name, "units"), "s-1");
            const Dataset ds = read(path, name);
            const std::vector<double>&za = axis[kAxes[c][0]], &ya = axis[kAxes[c][1]],
                  &xa = axis[kAxes[c][2]];
            if (ds.dims != std::vector<unsigned long long>{1, za.size(), ya.size(), xa.size()}) {
                ADD_FAILURE() << name << ": dimensions differ from its axes";
                e.max[c] = INFINITY;
                continue;
            }
            std::size_t at = 0;
            for (double z : za)
                for (double y : ya)
                    for (double x : xa) {
                        const double err = std::abs(ds.data[at++] - Flow::vort(c, x, y, z)) / scale;
                        e.max[c] = std::max(e.max[c], err);
                    }
        }
        // w2 on the w points, as before the derived fields.
        EXPECT_TRUE(attached(path, "w2", "zh", 1) && attached(path, "w2", "y", 2) &&
                    attached(path, "w2", "x", 3));
        const Dataset w2 = read(path, "w2");
        if (w2.data.size() != axis["zh"].size() * axis["y"].size() * axis["x"].size()) {
            ADD_FAILURE() << "w2: dimensions differ from its axes";
            continue;
        }
        std::size_t at = 0;
        double w2_err = 0;
        for (double z : axis["zh"])
            for (double y : axis["y"])
                for (double x : axis["x"]) {
                    const double w = double(T(Flow::w(x, y, z)));
                    w2_err = std::max(w2_err, std::abs(w2.data[at++] - w * w));
                }
        EXPECT_LT(w2_err, sizeof(T) == 4 ? 1e-6 : 1e-14);
    }
    return e;
}

TEST(CrossVorticity, SecondOrderOnAStretchedGridAtTheWrittenCoordinates) {
    const int sizes[3] = {32, 64, 128};
    Errors e[3];
    for (int r = 0; r < 3; ++r) e[r] = run_case<double>(sizes[r]);
    EXPECT_GT(e[0].dz_ratio, 5.0) << "the grid is hardly stretched";
    for (int c = 0; c < 3; ++c) {
        std::printf("%s: relative max error %.3e (%d^3) %.3e (%d^3) %.3e (%d^3), ratios %.3f "
                    "%.3f\n",
                    kComponents[c], e[0].max[c], sizes[0], e[1].max[c], sizes[1], e[2].max[c],
                    sizes[2], e[0].max[c] / e[1].max[c], e[1].max[c] / e[2].max[c]);
        for (int r = 0; r < 2; ++r) {
            const double ratio = e[r].max[c] / e[r + 1].max[c];
            EXPECT_GT(ratio, 3.9) << kComponents[c] << " from " << sizes[r];
            EXPECT_LT(ratio, 4.15) << kComponents[c] << " from " << sizes[r];
        }
        EXPECT_LT(e[2].max[c], 3e-4) << kComponents[c];
    }
}

TEST(CrossVorticity, FloatRunsWriteFloat32WithinRoundOff) {
    const Errors f = run_case<float>(32), d = run_case<double>(32);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(f.max[c], d.max[c], 1e-4) << kComponents[c];
    const std::string path = scratch_dir() + "/n32_float/vort.cross_xy.h5";
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    const hid_t ds = H5Dopen2(file, "vort_z", H5P_DEFAULT), type = H5Dget_type(ds);
    EXPECT_EQ(H5Tget_size(type), 4u);
    H5Tclose(type);
    H5Dclose(ds);
    H5Fclose(file);
}

} // namespace

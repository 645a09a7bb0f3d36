#pragma once
// Cross-sections and 3-D field files of a run (layout: docs/output.md). The model calls
// these on sample times; all calls are collective over the decomposition's communicator,
// rank 0 does the file I/O, and a failure throws std::runtime_error naming the file on
// every rank.
//
// On the GPU only what is written is copied back: an xy plane is one contiguous copy of
// the level (ghosts included); an xz row or a yz column is first packed on the device by
// the halo-exchange pack kernels (all levels of one row or column) and then copied in one
// piece. 3-D field files copy the whole fields.
//
// Vorticity components (vort_x, vort_y, vort_z) are derived: kernels/vorticity.cuh writes
// them into a scratch field, on the backend that holds the velocities, over the box of the
// section's points on this rank only (one launch per component and section); what is
// written is then copied back like any other field.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common.cuh"
#include "model/config/config.h"
#include "model/core/fields.h"
#include "model/decomp.h"
#include "model/grid.h"
#include "model/io/background_writer.h"
#include "model/io/cross_file.h"
#include "model/io/fields_file.h"

namespace squall {

namespace io {
class CrossFile;
}

template <typename T>
class Output {
public:
    Output(const Config& cfg, const Grid<T>& grid, Fields<T>& fields, const Decomposition& dc);
    ~Output();
    // A new run: creates the cross-section files and refuses existing output (files of
    // this case) unless cfg.overwrite.
    void create();
    // A restart at model time `time`: continues the cross-section files, dropping their
    // samples after `time`; 3-D field files of later times may be replaced.
    void resume(double time);
    // Appends one sample to each file. Rank 0 writes it on a thread of its own (when HDF5
    // is thread-safe) while the run goes on; a failure is reported by the next cross() or
    // wait_for_writes(), naming the file. Collective.
    void cross(double time);
    // Returns once the cross-section samples are on disk (before a checkpoint, at the end
    // of a run); throws as cross() does. Collective.
    void wait_for_writes();
    void fields(std::int64_t itime, double time); // writes <case>.fields.<itime>.h5

private:
    enum { xy, xz, yz };
    struct Section {
        bool on = false;
        std::string path;
        // Global indices of each axis (x, xh, y, yh, z, zh) that the section keeps.
        std::map<std::string, std::vector<int>> idx;
        std::unique_ptr<io::CrossFile> file; // rank 0
        // A sample's values: this rank's, all ranks' (rank 0) and each variable's global
        // array (rank 0). Kept from sample to sample: fresh pages cost more than the copies.
        std::vector<T> mine, got;
        std::vector<std::vector<T>> global;
    };
    // How a variable is made from the fields.
    enum class Derive { none, square, vort_x, vort_y, vort_z, ql, thv };
    struct Var {
        std::string name;  // as written (u, th, w2, vort_z, ...)
        Field3d<T>* field; // the field it reads (derived vorticity: the scratch field)
        bool xh, yh, zh;   // on the x, y, z faces (else at the centres) along each axis
        Derive derive;
        std::string long_name, units;
        double offset = 0; // added to every value: u and v in the ground frame (grid.utrans)
    };
    Var var(const std::string& name);
    std::vector<double> axis_values(const std::string& axis) const;
    // Computes a derived field (vorticity, moist ql and thv) at the section's points of this
    // rank into scratch_; derive_in computes it over a box of the local grid.
    void derive(const Section& s, const Var& v);
    void derive_in(const sq::Range3& r, const Var& v);
    void stage_on_host(const Section& s, const Var& v);
    // This rank's part of one variable: the kept indices that lie in the block
    // (ioff, joff, imax, jmax), in (k, j, i) order.
    struct Part {
        std::vector<int> k, j, i;            // global indices
        std::vector<std::size_t> jn, in;     // their positions in the section's y and x axes
        const char *ydim = "y", *xdim = "x"; // the variable's axes
    };
    Part part(const Section& s, const Var& v, int ioff, int joff, int imax, int jmax) const;
    // Rank 0 gathers every rank's s.mine (counts[r] values from rank r) into s.got, rank
    // after rank (one rank: the two swap); returns each rank's offset in it. Collective.
    std::vector<int> gather_on_root(Section& s, const std::vector<int>& counts);
    // Runs f on rank 0 and throws its failure on every rank, prefixed by path (by nothing
    // when path is empty: the message names the file).
    void on_root(const std::string& path, const std::function<void()>& f) const;

    const Config& cfg_;
    const Grid<T>& g_;
    Fields<T>& f_;
    const Decomposition& dc_;
    bool restarted_ = false;
    std::array<Section, 3> sec_;
    std::vector<Var> cross_vars_;
    // The surface fields (output.cross.surface): 2-D arrays, one (z = 0, y, x) plane each.
    struct SurfaceVar {
        std::string name, long_name, units;
        DeviceArray<T>* a;
        bool xh, yh; // on the u (v) faces
    };
    Section surface_;
    std::vector<SurfaceVar> surface_vars_;
    io::CrossHeader surface_header() const;
    // This rank's part of the surface fields, gathered on rank 0 into the global arrays.
    void gather_surface();
    std::vector<std::array<int, 4>> blocks_; // rank 0: every rank's ioff, joff, imax, jmax
    DeviceArray<T> pack_;                    // GPU: one packed row or column
    Field3d<T> scratch_;                     // derived fields (allocated when asked for)
    std::map<std::string, Field3d<T>> derived_fields_; // output.fields' derived ones, by name
    DeviceArray<T> lwp_, zcb_;                         // moist's 2-D fields (output.cross.surface)
    DeviceArray<T> z_;                                 // the column kernel's copy of Grid::z
    int qt_ = -1;                                      // moist: qt's index in Fields::scalars
    DeviceArray<T> dzhi_;                              // the kernels' copy of Grid::dzhi
    io::BackgroundWriter writer_; // rank 0's cross-section appends; last: joined first
};

extern template class Output<float>;
extern template class Output<double>;

} // namespace squall

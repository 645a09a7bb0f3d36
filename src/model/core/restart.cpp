// Checkpoints and restart, and stopping early: on SIGTERM/SIGINT and before
// time.walltime_limit (layout and rules: docs/output.md, "Checkpoints and restart").
//
// What a step carries over to the next, and so what a checkpoint holds:
//  - u, v, w and the scalar (interior; ghosts follow from them via set_boundaries(), which
//    also recomputes the surface layer: SurfaceMost solves each column afresh);
//  - itime, idt (a fixed-dt run continues with the last step's size) and nstep
//    (compute_idt() takes time.dt on step 0);
//  - evisc (LES): the next step recomputes it before use, but the status line and
//    statistics read the value the last substep left;
//  - not the tendencies: the last RK stage multiplies them by a = 0, so every step starts
//    from zero; not p: each solve overwrites it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/core.h>

#include "model/core/failsafe.h"
#include "model/core/model.h"
#include "model/core/output.h"
#include "model/core/stop_signal.h"
#include "model/stats/stats.h" // for the statistics' resume after a restart

namespace squall {

template <typename T>
double Model<T>::wall_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

namespace {
// The bytes of n global fields of the grid in the model's precision (a checkpoint's data).
template <typename T>
double field_bytes(const Grid<T>& g, std::size_t n) {
    return double(n) * g.d.itot * g.d.jtot * g.d.ktot * sizeof(T);
}
} // namespace

template <typename T>
std::vector<io::CheckpointField<T>> Model<T>::checkpoint_fields() {
    std::vector<io::CheckpointField<T>> r = {{"u", &f_.u}, {"v", &f_.v}, {"w", &f_.w}};
    if (f_.has_scalar) r.push_back({scalar_name(cfg_.thermo), &f_.s});
    for (std::size_t n = 0; n < f_.scalars.size(); ++n)
        r.push_back({cfg_.scalars[n].name, &f_.scalars[n].c});
    if (les()) r.push_back({"evisc", &f_.evisc});
    return r;
}

template <typename T>
std::string Model<T>::write_checkpoint() {
    check_finite(*this, diagnostics()); // a NaN state is never checkpointed
    // The cross-section samples up to now are on disk before the checkpoint that a restart
    // continues them from.
    if (output_) output_->wait_for_writes();
    const auto fields = checkpoint_fields();
    const double t0 = wall_seconds(); // the copy from the device counts
    if (on_device_)
        for (const auto& f : fields) f.field->to_host();
    io::CheckpointInfo info;
    info.itime = itime_;
    info.idt = idt_;
    info.nstep = nstep_;
    info.time = time();
    info.precision = sizeof(T) == 4 ? "float" : "double";
    info.backend = on_device_ ? "gpu" : "cpu";
    info.itot = g_.d.itot;
    info.jtot = g_.d.jtot;
    info.ktot = g_.d.ktot;
    info.npx = decomp_.npx;
    info.npy = decomp_.npy;
    for (int k = g_.d.kstart; k < g_.d.kend; ++k) info.z.push_back(double(g_.z[k]));
    info.resolved_yaml = cfg_.resolved_yaml;
    const std::filesystem::path dir(cfg_.output_dir);
    if (decomp_.rank == 0) {
        std::error_code ec; // a failure shows up as the file's creation failing
        std::filesystem::create_directories(dir, ec);
    }
    const std::string path = (dir / io::checkpoint_name(cfg_.name, itime_)).string();
    io::write_checkpoint(path, info, fields, decomp_);
    // Older ones go only now that the new one is in place.
    if (decomp_.rank == 0) io::prune_checkpoints(cfg_.output_dir, cfg_.name, cfg_.checkpoint_keep);
    const double now = wall_seconds();
    checkpoint_seconds_ = now - t0;
    wall_last_checkpoint_ = now;
    itime_last_checkpoint_ = itime_;
    if (decomp_.rank == 0) {
        fmt::print("squall: checkpoint {} written at step {}: {:.1f} MB in {:.3f} s\n", path,
                   nstep_, field_bytes(g_, fields.size()) / 1e6, checkpoint_seconds_);
    }
    return path;
}

template <typename T>
void Model<T>::restart(const std::string& file) {
    const io::CheckpointInfo info = io::read_checkpoint_info(file);
    // The resolved cases hold precision, grid and physics; z is compared as computed.
    std::vector<std::string> diffs = io::case_differences(info.resolved_yaml, cfg_.resolved_yaml);
    const auto& d = g_.d;
    if (int(info.z.size()) == d.ktot) {
        for (int k = 0; k < d.ktot; ++k)
            if (info.z[k] != double(g_.z[d.kstart + k])) {
                diffs.push_back(fmt::format("grid z (cell centres) at k = {}: checkpoint {}, "
                                            "case {}",
                                            k, info.z[k], double(g_.z[d.kstart + k])));
                break;
            }
    } else {
        diffs.push_back(
            fmt::format("grid z levels: checkpoint {}, case {}", info.z.size(), d.ktot));
    }
    const auto fields = checkpoint_fields();
    for (const auto& f : fields)
        if (std::find(info.fields.begin(), info.fields.end(), f.name) == info.fields.end())
            diffs.push_back(fmt::format("field {}: missing in the checkpoint", f.name));
    if (!diffs.empty()) {
        std::string list;
        for (const auto& s : diffs) list += "\n  " + s;
        throw io::CheckpointError(
            fmt::format("checkpoint {} does not fit case '{}' ({} difference(s)):{}", file,
                        cfg_.name, diffs.size(), list));
    }
    const double t0 = wall_seconds(); // the copy to the device counts
    const std::size_t unchecked = io::read_checkpoint_fields(file, fields, decomp_);
    for (Field3d<T>* t : {&f_.ut, &f_.vt, &f_.wt, &f_.st})
        if (t->size() > 0) t->fill(T(0)); // host; the copy below takes them to the device
    f_.to_device();
    const double read_s = wall_seconds() - t0;
    itime_ = info.itime;
    idt_ = info.idt;
    nstep_ = info.nstep;
    set_boundaries();
    restarted_ = true;
    itime_last_checkpoint_ = itime_;
    if (stats_) stats_->resume(time()); // the statistics file continues, later samples dropped
    if (output_) output_->resume(output_time()); // so do the cross-section files
    const char* backend = on_device_ ? "gpu" : "cpu";
    if (decomp_.rank == 0) {
        fmt::print("squall: restart from {} at step {}, time {}\n", file, nstep_, time());
        if (itime_ >= iendtime_) // a finished run: exit 0, but say why nothing runs
            fmt::print("squall: the checkpoint is at or past time.endtime = {} s: nothing to "
                       "run (raise time.endtime, e.g. --set time.endtime=..., to continue)\n",
                       cfg_.endtime);
        fmt::print("squall: checkpoint {} read: {:.1f} MB in {:.3f} s\n", file,
                   field_bytes(g_, fields.size()) / 1e6, read_s);
        if (unchecked > 0)
            fmt::print("squall: checkpoint {} has no checksum for {} of its {} fields (written "
                       "before squall stored them): their data is not verified\n",
                       file, unchecked, fields.size());
        if (info.npx != decomp_.npx || info.npy != decomp_.npy || info.backend != backend)
            fmt::print("squall: restart on {} ranks ({} x {}, {}) from a checkpoint written on {} "
                       "ranks ({} x {}, {}): continues to round-off, not bitwise\n",
                       decomp_.nprocs, decomp_.npx, decomp_.npy, backend, info.npx * info.npy,
                       info.npx, info.npy, info.backend);
        std::fflush(stdout);
    }
}

template <typename T>
bool Model<T>::checkpoint_after_step() {
    const double now = wall_seconds();
    const double step_s = now - (wall_last_step_ < 0 ? wall_start_ : wall_last_step_);
    wall_last_step_ = now;
    // Wall-clock decisions differ between ranks; the flags are agreed on below.
    int flags[3] = {stop_signal(), 0, 0};
    if (cfg_.walltime_limit > 0) {
        // Stop when the next step and a checkpoint might not fit any more. Before the
        // first write, assume 100 MB/s for the checkpoint.
        double write_s = checkpoint_seconds_;
        if (write_s < 0) write_s = field_bytes(g_, checkpoint_fields().size()) / 1e8;
        flags[1] = now - wall_start_ + step_s + 2 * write_s >= cfg_.walltime_limit;
    }
    if (cfg_.checkpoint_wall > 0)
        flags[2] = now - (wall_last_checkpoint_ < 0 ? wall_start_ : wall_last_checkpoint_) >=
                   cfg_.checkpoint_wall;
    MPI_Allreduce(MPI_IN_PLACE, flags, 3, MPI_INT, MPI_MAX, decomp_.comm);
    const std::int64_t every = std::llround(cfg_.checkpoint_every / time_unit);
    const bool periodic = every > 0 && itime_ / every > (itime_ - idt_) / every;
    const bool finished = itime_ >= iendtime_ || (cfg_.max_steps >= 0 && nstep_ >= cfg_.max_steps);
    if (flags[0] || (flags[1] && !finished)) {
        const std::string file = write_checkpoint();
        if (decomp_.rank == 0) {
            const std::string why =
                flags[0] ? fmt::format("{} received", stop_signal_name(flags[0]))
                         : fmt::format("time.walltime_limit {} s nearly reached after {:.1f} s",
                                       cfg_.walltime_limit, now - wall_start_);
            fmt::print("squall: {}: checkpoint {} written at step {}, time {}; continue with "
                       "--restart latest\n",
                       why, file, nstep_, time());
            std::fflush(stdout);
        }
        exit_code_ = flags[0] ? 128 + flags[0] : 0;
        return true;
    }
    if (periodic || flags[2]) write_checkpoint();
    return false;
}

template <typename T>
void Model<T>::final_checkpoint() {
    const bool enabled = cfg_.checkpoint_every > 0 || cfg_.checkpoint_wall > 0;
    if (enabled && itime_last_checkpoint_ != itime_) write_checkpoint();
}

#define SQUALL_RESTART_INSTANTIATE(T)                                                              \
    template double Model<T>::wall_seconds();                                                      \
    template std::vector<io::CheckpointField<T>> Model<T>::checkpoint_fields();                    \
    template std::string Model<T>::write_checkpoint();                                             \
    template void Model<T>::restart(const std::string&);                                           \
    template bool Model<T>::checkpoint_after_step();                                               \
    template void Model<T>::final_checkpoint();
SQUALL_RESTART_INSTANTIATE(float)
SQUALL_RESTART_INSTANTIATE(double)
#undef SQUALL_RESTART_INSTANTIATE

} // namespace squall

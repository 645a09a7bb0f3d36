#pragma once
// The resolved case configuration. Every YAML key maps onto one field here; see
// docs/case-schema.md. Values are validated by load_config(); the model trusts them.
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace squall {

// Thrown for any problem with a case file or override; what() names file, line,
// column and key, e.g. "cases/x.yaml:12:5: grid.itot: expected a positive integer".
struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Precision { single, dbl };
enum class Backend { automatic, cpu, gpu };
// model.tendencies: advection and diffusion in fused kernels, one for u, v, w and one for the
// scalar (kernels/tend_fused.cuh), or in separate ones; automatic picks per backend
// (tendencies.cpp: fused_tendencies).
enum class Tendencies { automatic, fused, separate };
enum class AdvecScheme { second, second_i5 }; // "2", "2i5"
enum class DiffType { none, constant, smag2 };
// dry: prognostic th; buoy: prognostic b; moist: prognostic thl with the passive scalar qt
// (kernels/moist.cuh).
enum class ThermoType { none, dry, buoy, moist };
// The thermodynamic scalar's name in output, statistics, checkpoints and tables: th (dry),
// b (buoy), thl (moist), "" (none).
inline const char* scalar_name(ThermoType t) {
    return t == ThermoType::dry     ? "th"
           : t == ThermoType::buoy  ? "b"
           : t == ThermoType::moist ? "thl"
                                    : "";
}
enum class MomBc { noslip, freeslip };
enum class ScalarBc { dirichlet, neumann, flux };
enum class InitType { zero, taylorgreen, random, couette, profile };

struct GridConfig {
    int itot = 0, jtot = 1, ktot = 0;       // required (jtot may be 1 for 2-D)
    double xsize = 0, ysize = 1, zsize = 0; // required
    // Vertical levels: either explicit cell-centre heights `z` (ktot values, strictly
    // increasing, inside (0, zsize)), or a stretching rule.
    std::vector<double> z;           // grid.z (optional)
    std::string stretch = "uniform"; // grid.stretch: uniform | tanh
    double stretch_factor = 0;       // grid.stretch_factor (> 0 for tanh)
    // grid.utrans, grid.vtrans: the model runs in a frame moving with this velocity
    // (Galilean translation, m/s), so that a strong mean wind does not cut the time step;
    // every input and output velocity stays in the ground frame.
    double utrans = 0, vtrans = 0;
};

// A value given as a table in time (s): linear between the times, constant beyond them.
struct TimeTable {
    std::vector<double> times, values;
    bool empty() const { return times.empty(); }
    double at(double t) const {
        if (t <= times.front()) return values.front();
        for (std::size_t n = 1; n < times.size(); ++n)
            if (t <= times[n])
                return values[n - 1] +
                       (values[n] - values[n - 1]) * (t - times[n - 1]) / (times[n] - times[n - 1]);
        return values.back();
    }
};

struct MpiConfig {
    int npx = 0, npy = 0; // 0 = choose automatically
    std::string source;   // "file:line:col" of mpi.npx (or mpi, or the
                          // file), for decomposition error messages
};

struct SurfaceConfig {
    bool enabled = false;        // boundary.surface_model: none | most
    double z0m = 0.1, z0h = 0.1; // roughness lengths (m)
};

struct BoundaryConfig {
    MomBc mom_bot = MomBc::noslip, mom_top = MomBc::freeslip;
    double u_bot = 0, u_top = 0, v_bot = 0, v_top = 0; // wall velocities for noslip
    ScalarBc s_bot = ScalarBc::neumann, s_top = ScalarBc::neumann;
    double s_bot_value = 0, s_top_value = 0; // value, gradient or flux
    // boundary.scalar_bot_rate: a dirichlet bottom value changes as s_bot_value + rate t
    // (units/s), e.g. a surface cooling rate.
    double s_bot_rate = 0;
    // boundary.scalar_bot_times, scalar_bot_values: the bottom value (flux, value or gradient)
    // as a table in time instead, e.g. a diurnal surface flux.
    TimeTable s_bot_table;
    double s_bot_at(double t) const {
        return s_bot_table.empty() ? s_bot_value + s_bot_rate * t : s_bot_table.at(t);
    }
    // boundary.ustar: a prescribed friction velocity (m/s) for the surface model, the surface
    // stress then aligned against the lowest level's wind; 0 = u* from Monin-Obukhov.
    double ustar = 0;
    SurfaceConfig surface;
};

struct SpongeConfig {
    bool enabled = false;
    double zstart = 0;   // must be < zsize
    double sigma = 0.01; // 1/s
    int beta = 2;
};

// coriolis: the f-plane Coriolis force, with the geostrophic wind as the large-scale
// pressure gradient (kernels/forcing.cuh).
struct CoriolisConfig {
    double f = 0;          // coriolis.f (1/s), 0 = off
    double ug = 0, vg = 0; // coriolis.ug, coriolis.vg: geostrophic wind (m/s)
    bool enabled() const { return f != 0; }
};

// forcing: large-scale forcings given as a table by height, interpolated linearly to the
// levels (constant beyond its ends): the scalar's tendency from processes the model does not
// resolve (radiative cooling, advection by the large-scale flow), large-scale subsidence
// acting on the horizontal means, and nudging of the means towards profiles.
struct ForcingConfig {
    std::vector<double> z;            // forcing.z (m), strictly increasing
    std::vector<double> th_tendency;  // forcing.th_tendency (scalar units/s), one per z
    std::vector<double> w_ls;         // forcing.w_ls (m/s, < 0 downwards), one per z
    bool subsidence_momentum = false; // forcing.subsidence_momentum: w_ls acts on u, v too
    double nudge_time = 0;            // forcing.nudge_time (s), 0 = no nudging
    std::vector<double> nudge_th, nudge_u, nudge_v; // forcing.nudge_*: targets, one per z
    // forcing.ug, forcing.vg: the geostrophic wind by height (with coriolis.f), in place of
    // the constant coriolis.ug, coriolis.vg.
    std::vector<double> ug, vg;
    // The passive scalars' columns by scalar name: forcing.<name>_tendency and
    // forcing.nudge_<name> (the thermo scalar's are th_tendency and nudge_th above, named
    // thl_tendency and nudge_thl with thermo.type moist).
    std::map<std::string, std::vector<double>> scalar_tendency, nudge_scalar;
    // Whether each part acts.
    bool subsidence() const { return !w_ls.empty(); }
    bool nudging() const { return nudge_time > 0; }
    // The scalar's forcing, the momentum's forcing, any of them.
    bool scalar_forced() const {
        return !th_tendency.empty() || subsidence() || (nudging() && !nudge_th.empty());
    }
    // The passive scalar `name`'s forcing: its tendency, subsidence, nudging.
    bool passive_forced(const std::string& name) const {
        return subsidence() || has(scalar_tendency, name) || (nudging() && has(nudge_scalar, name));
    }
    static bool has(const std::map<std::string, std::vector<double>>& m, const std::string& n) {
        const auto it = m.find(n);
        return it != m.end() && !it->second.empty();
    }
    bool momentum_forced() const {
        return (subsidence() && subsidence_momentum) ||
               (nudging() && (!nudge_u.empty() || !nudge_v.empty()));
    }
    bool enabled() const {
        bool passive = false;
        for (const auto& [name, col] : scalar_tendency) passive |= !col.empty();
        for (const auto& [name, col] : nudge_scalar) passive |= !col.empty();
        return scalar_forced() || momentum_forced() || passive;
    }
};

// scalars.<name>: a passive scalar, advected and diffused as the thermo scalar is (with its
// diffusivity), with its own boundary conditions and initial state. thermo.type moist takes
// the total water qt from here.
struct ScalarConfig {
    std::string name;
    ScalarBc bot = ScalarBc::flux, top = ScalarBc::neumann; // scalars.<name>.bot, .top
    double bot_value = 0, top_value = 0; // value, gradient or flux (kinematic: units m/s)
    TimeTable bot_table;                 // bot_times, bot_values: the bottom value in time
    double bot_at(double t) const { return bot_table.empty() ? bot_value : bot_table.at(t); }
    double init_value = 0;        // uniform initial value (an init.profiles column
                                  // named after the scalar replaces it)
    double perturb_amplitude = 0; // random initial perturbation (below
                                  // init.perturb_height)
};

// A table of profiles by height: a z column and named columns, one value per height,
// interpolated linearly to the levels and constant beyond the ends (init.profiles).
struct ProfileTable {
    std::vector<double> z;
    std::vector<std::pair<std::string, std::vector<double>>> columns;
    std::string source; // the CSV file it was read from ("" when given in the case)
    bool empty() const { return z.empty(); }
    // The named column, or nullptr.
    const std::vector<double>* column(const std::string& name) const {
        for (const auto& [n, c] : columns)
            if (n == name) return &c;
        return nullptr;
    }
};

struct InitConfig {
    InitType type = InitType::zero;
    double th0 = 300;              // K (or b0 in buoy mode)
    double lapse_rate = 0;         // K/m above the mixed layer
    double mixed_layer_height = 0; // m, constant th below
    double perturb_amplitude = 0;  // random amplitude (velocity and scalar)
    double perturb_velocity = -1;  // velocity amplitude (-1: perturb_amplitude)
    double perturb_height = 0;     // perturb only z < this (0 = everywhere)
    unsigned long seed = 1;
    double u0 = 0, v0 = 0; // initial uniform wind
    // init.profiles (type profile): the scalar (named as its statistics: th or b), u and v
    // by height; a column present replaces th0/lapse_rate, u0 or v0.
    ProfileTable profiles;
    double velocity_amplitude() const {
        return perturb_velocity >= 0 ? perturb_velocity : perturb_amplitude;
    }
};

// output.cross: 2-D sections of 3-D fields, sampled every `every` model seconds.
struct CrossConfig {
    double every = 0;                // output.cross.every (s, 0 = off)
    std::vector<std::string> fields; // output.cross.fields (names)
    std::vector<double> xy, xz, yz;  // heights, y and x positions (m)
    // output.cross.surface: 2-D surface fields (ustar, obuk_inv, <s>_fluxbot, u_fluxbot,
    // v_fluxbot), written to <case>.cross_surface.h5.
    std::vector<std::string> surface;
};

// output.fields: whole 3-D fields, one file per output time.
struct FieldsOutputConfig {
    double every = 0;               // output.fields.every (s, 0 = off)
    std::vector<std::string> names; // output.fields.names
    bool float32 = false;           // output.fields.float32
    bool checksum = true;           // output.fields.checksum (Fletcher-32 per chunk)
};

struct Config {
    std::string file; // path of the case file
    std::string name; // case name (defaults to file stem)

    Precision precision = Precision::dbl;          // model.precision: float | double
    Backend backend = Backend::automatic;          // model.backend: auto | cpu | gpu
    Tendencies tendencies = Tendencies::automatic; // model.tendencies: auto | fused | separate

    GridConfig grid;
    MpiConfig mpi;

    AdvecScheme advec = AdvecScheme::second_i5; // advection.scheme
    double cflmax = -1;                         // advection.cflmax (-1 = scheme default)

    DiffType diff = DiffType::constant; // diffusion.type
    double nu = 0;                      // diffusion.nu (m2/s)
    double kappa = 0;                   // diffusion.kappa (m2/s)
    double cs = 0.23;                   // diffusion.cs
    double prandtl_t = 1.0 / 3.0;       // diffusion.prandtl_t
    double dnmax = 0.4;                 // diffusion.dnmax

    ThermoType thermo = ThermoType::none; // thermo.type
    double thref = 300;                   // thermo.thref (K); moist: the reference thv
    double gravity = 9.81;                // thermo.gravity
    double pbot = 1e5;                    // thermo.pbot: surface pressure (Pa), moist
    std::vector<ScalarConfig> scalars;    // scalars (passive; moist's qt among them)
    // The index of the passive scalar `name` in scalars, or -1.
    int scalar_index(const std::string& name) const {
        for (std::size_t n = 0; n < scalars.size(); ++n)
            if (scalars[n].name == name) return int(n);
        return -1;
    }

    BoundaryConfig bc;
    SpongeConfig sponge;
    CoriolisConfig coriolis;
    ForcingConfig forcing;
    InitConfig init;

    int rk_order = 3;          // time.rk: 3 | 4
    double endtime = 0;        // time.endtime (s), required
    double dt = 1;             // time.dt initial/fixed (s), > 0
    double dtmax = 1e9;        // time.dtmax
    bool adaptive_dt = true;   // time.adaptive
    long max_steps = -1;       // time.max_steps (-1 = no limit)
    double walltime_limit = 0; // time.walltime_limit (wall s, 0 = none)

    int status_every = 10;         // output.status_every (steps)
    double stats_every = 0;        // output.stats_every (s, 0 = off)
    std::string output_dir = ".";  // output.dir
    std::string stats_file;        // output.stats_file (default <name>.stats.h5)
    double checkpoint_every = 0;   // output.checkpoint_every (model s, 0 = off)
    double checkpoint_wall = 0;    // output.checkpoint_wall (wall s, 0 = off)
    int checkpoint_keep = 2;       // output.checkpoint_keep (>= 1)
    CrossConfig cross;             // output.cross
    FieldsOutputConfig fields_out; // output.fields

    // Not case keys: `squall run --overwrite` (replace existing output) and `--restart
    // FILE|latest` (empty: start from cfg.init).
    bool overwrite = false;
    std::string restart;

    std::string resolved_yaml; // the full resolved configuration
};

// The resolved configuration of a Config with every default (keys a newer version added are
// read as these in older files: restart's comparison).
std::string default_resolved_yaml();

// Load, validate and resolve a case. `overrides` are "dotted.key=value" strings from
// the command line (e.g. "grid.itot=32"); they are applied before validation and
// reported with the source "<command line>". Throws ConfigError.
Config load_config(const std::string& path, const std::vector<std::string>& overrides = {});

// Whether the fused tendency kernels cover the case: 2i5 advection with Smagorinsky
// diffusion or 2 with constant diffusion, and a buoyancy (the momentum kernels add it to w).
bool fused_tendencies_available(const Config& c);
// Whether a run of the case uses them, where they apply: model.tendencies fused, or auto on
// the GPU backend, where both pairs were measured faster; auto runs the separate kernels on
// the CPU, where they are slower (docs/performance.md). An unresolved backend counts as the
// CPU.
bool runs_fused_tendencies(const Config& c);
// Whether the fused scalar kernel also takes the scalar's RK stage (kernels/tend_fused.cuh,
// into Fields::s_next): when the fused kernels run and neither a sponge kernel (the 2i5
// kernels subtract the damping themselves, the constant-diffusion pair leaves it to the
// sponge kernels) nor a forcing of the scalar adds to its tendency after them.
bool runs_scalar_stage_in_tendencies(const Config& c);

// Choose or check the MPI decomposition for `nprocs` ranks. npx/npy == 0 means
// automatic. Returns {npx, npy}; throws ConfigError explaining why a given
// decomposition cannot fit the grid and listing decompositions that would.
struct Decomp2 {
    int npx, npy;
};
Decomp2 resolve_decomposition(const Config& cfg, int nprocs);
// Why resolve_decomposition chose `chosen` for `nprocs` ranks, with the other layouts that
// fit and their cost, for the run's log; empty when the case gave both npx and npy.
std::string explain_decomposition(const Config& cfg, int nprocs, Decomp2 chosen);

} // namespace squall

// load_config(): read the case file, apply command-line overrides, validate every key
// against the schema (docs/case-schema.md) and resolve defaults.
#include "model/config/config.h"
#include "model/config/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <tuple>
#include <utility>

namespace squall {

namespace cfg {

const std::vector<SectionKeys>& schema_sections() {
    static const std::vector<SectionKeys> sections = {
        {"model", {"precision", "backend", "tendencies"}},
        {"grid",
         {"itot", "jtot", "ktot", "xsize", "ysize", "zsize", "z", "stretch", "stretch_factor",
          "utrans", "vtrans"}},
        {"mpi", {"npx", "npy"}},
        {"advection", {"scheme", "cflmax"}},
        {"diffusion", {"type", "nu", "kappa", "cs", "prandtl_t", "dnmax"}},
        {"thermo", {"type", "thref", "gravity", "pbot"}},
        {"scalars", {}}, // names the case chooses (read_scalars)
        {"boundary",
         {"mom_bot", "mom_top", "u_bot", "u_top", "v_bot", "v_top", "scalar_bot",
          "scalar_bot_value", "scalar_bot_rate", "scalar_bot_times", "scalar_bot_values",
          "scalar_top", "scalar_top_value", "surface_model", "z0m", "z0h", "ustar"}},
        {"sponge", {"enabled", "zstart", "sigma", "beta"}},
        {"coriolis", {"f", "ug", "vg"}},
        {"forcing",
         {"z", "th_tendency", "w_ls", "subsidence_momentum", "nudge_time", "nudge_th", "nudge_u",
          "nudge_v", "ug", "vg", "file"}}, // and forcing_columns' names for thl and the scalars
        {"init",
         {"type", "th0", "lapse_rate", "mixed_layer_height", "perturb_amplitude",
          "perturb_velocity", "perturb_height", "seed", "u0", "v0", "profiles"}},
        {"time", {"rk", "endtime", "dt", "dtmax", "adaptive", "max_steps", "walltime_limit"}},
        {"output",
         {"status_every", "stats_every", "dir", "stats_file", "checkpoint_every", "checkpoint_wall",
          "checkpoint_keep", "cross", "fields"}},
    };
    return sections;
}

namespace {

const std::vector<std::string>& keys_of(const std::string& section) {
    for (const auto& s : schema_sections())
        if (s.name == section) return s.keys;
    throw std::logic_error("squall config: no section " + section);
}

std::vector<std::string> top_level_keys() {
    std::vector<std::string> keys = {"name"};
    for (const auto& s : schema_sections()) keys.push_back(s.name);
    return keys;
}

YAML::Node parse_file(const std::string& path) {
    std::FILE* fp = std::fopen(path.c_str(), "rb");
    if (!fp)
        throw ConfigError(
            fmt::format("cannot open case file '{}': {}", path, std::strerror(errno)));
    std::string text;
    char buf[65536];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, fp)) > 0) text.append(buf, n);
    const int err = std::ferror(fp) ? errno : 0; // e.g. EISDIR for a directory
    std::fclose(fp);
    if (err)
        throw ConfigError(fmt::format("cannot open case file '{}': {}", path, std::strerror(err)));
    try {
        return YAML::Load(text);
    } catch (const YAML::Exception& e) {
        if (e.mark.is_null())
            throw ConfigError(fmt::format("{}: YAML syntax error: {}", path, e.msg));
        throw ConfigError(fmt::format("{}:{}:{}: YAML syntax error: {}", path, e.mark.line + 1,
                                      e.mark.column + 1, e.msg));
    }
}

// Check an override's key against the schema before touching the tree, so a typo on the
// command line is reported as such rather than as a missing key.
std::vector<std::string> check_override_key(const std::string& key) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto dot = key.find('.', start);
        parts.push_back(key.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    auto unknown = [&](const std::string& section, const std::string& k,
                       const std::vector<std::string>& valid) {
        throw ConfigError(fmt::format("<command line>: {}: unknown key '{}'{}{}", key, k,
                                      section.empty() ? "" : " in section '" + section + "'",
                                      suggestion(section, k, valid)));
    };
    const auto top = top_level_keys();
    if (std::find(top.begin(), top.end(), parts[0]) == top.end()) unknown("", parts[0], top);
    if (parts.size() == 1) return parts;
    // A third level only inside the maps of maps: a passive scalar's keys, output.cross,
    // output.fields and init.profiles (the reader checks those keys).
    const bool map_of_maps =
        parts[0] == "scalars" ||
        (parts[0] == "output" && (parts[1] == "cross" || parts[1] == "fields")) ||
        (parts[0] == "init" && parts[1] == "profiles");
    if (parts[0] == "name" || parts.size() > 3 || (parts.size() == 3 && !map_of_maps))
        throw ConfigError(fmt::format("<command line>: {}: unknown key (too many levels)", key));
    // scalars and forcing have keys named by the case: the reader checks those.
    const auto& keys = keys_of(parts[0]);
    const bool named = parts[0] == "scalars" || parts[0] == "forcing";
    if (!named && std::find(keys.begin(), keys.end(), parts[1]) == keys.end())
        unknown(parts[0], parts[1], keys);
    return parts;
}

// Returns the dotted paths that now come from the command line.
std::vector<std::string> apply_overrides(YAML::Node& root,
                                         const std::vector<std::string>& overrides) {
    std::vector<std::string> marked;
    for (const auto& o : overrides) {
        const auto eq = o.find('=');
        if (eq == std::string::npos || eq == 0)
            throw ConfigError(fmt::format(
                "<command line>: override '{}' must have the form dotted.key=value", o));
        const std::string key = o.substr(0, eq), text = o.substr(eq + 1);
        const auto parts = check_override_key(key);
        YAML::Node value;
        try {
            value = YAML::Load(text);
        } catch (const YAML::Exception& e) {
            throw ConfigError(
                fmt::format("<command line>: {}: cannot parse value '{}': {}", key, text, e.msg));
        }
        if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
        if (!root.IsMap()) break; // reported against the file by the reader
        // Down the levels, making the maps that are missing (and marking them as the
        // command line's), then the value.
        YAML::Node node = root;
        std::string path;
        bool reachable = true;
        for (std::size_t n = 0; n + 1 < parts.size() && reachable; ++n) {
            path += (n ? "." : "") + parts[n];
            const YAML::Node existing = std::as_const(node)[parts[n]]; // lookup, no insert
            if (!existing || existing.IsNull()) {
                if (!existing) marked.push_back(path);
                node[parts[n]] = YAML::Node(YAML::NodeType::Map);
            }
            node.reset(node[parts[n]]);
            reachable = node.IsMap();
        }
        if (!reachable) {
            // A section that is not a map: the reader reports it; a value that a deeper key
            // cannot go into (init.profiles given as a file name) is the override's fault.
            if (parts.size() < 3) continue;
            throw ConfigError(fmt::format("<command line>: {}: {} is not a map in the case (a "
                                          "file name or a value): set the whole {} instead",
                                          key, path, path));
        }
        node[parts.back()] = value;
        marked.push_back(key);
    }
    return marked;
}

// Lowest cell centre, for the roughness-length check (same rules as vertical_levels()).
double lowest_level(const GridConfig& g) {
    if (!g.z.empty()) return g.z[0];
    if (g.stretch == "tanh") {
        const double a = g.stretch_factor;
        auto face = [&](double s) { return g.zsize * (1 - std::tanh(a * (1 - s)) / std::tanh(a)); };
        return 0.5 * (face(0) + face(1.0 / g.ktot));
    }
    return 0.5 * g.zsize / g.ktot;
}

// The hint after a too-small output interval.
std::string off_hint(const std::string& key) {
    if (key == "output.stats_every") return "; use 0 to turn statistics off";
    if (key == "output.cross.every") return "; use 0 to turn cross-sections off";
    if (key == "output.fields.every") return "; use 0 to turn 3-D fields off";
    return "";
}

// Output file names are built from these: a path in them would write outside output.dir.
void check_file_name(CaseReader& r, const std::string& key, const std::string& v) {
    const bool plain =
        !v.empty() && v != "." && v != ".." && v.find('/') == std::string::npos &&
        std::all_of(v.begin(), v.end(), [](unsigned char ch) { return ch >= ' ' && ch != 127; });
    if (!plain)
        r.fail_key(key, fmt::format("'{}' is not a plain file name (no '/', not '.' or '..'): "
                                    "output files are named after it inside output.dir",
                                    v));
}

void read_sections(CaseReader& r, Config& c) {
    const YAML::Node& root = r.root();
    Section top(r, "", root, r.where("", root.Mark()), top_level_keys());
    if (top.string("name", c.name)) check_file_name(r, "name", c.name);

    Section model = top.child("model", keys_of("model"));
    model.choice("precision", c.precision, precision_names);
    model.choice("backend", c.backend, backend_names);
    model.choice("tendencies", c.tendencies, tendencies_names);

    Section grid = top.child("grid", keys_of("grid"));
    for (const char* k : {"itot", "ktot", "xsize", "zsize"}) grid.require(k);
    grid.integer("itot", c.grid.itot, at_least(1));
    grid.integer("jtot", c.grid.jtot, at_least(1));
    grid.integer("ktot", c.grid.ktot, at_least(2));
    grid.real("xsize", c.grid.xsize, positive());
    grid.real("ysize", c.grid.ysize, positive());
    grid.real("zsize", c.grid.zsize, positive());
    grid.real_list("z", c.grid.z);
    int stretch = 0;
    const bool stretch_given = grid.choice("stretch", stretch, stretch_names);
    c.grid.stretch = stretch_names[stretch].name;
    const bool factor_given = grid.real("stretch_factor", c.grid.stretch_factor, at_least(0));
    grid.real("utrans", c.grid.utrans);
    grid.real("vtrans", c.grid.vtrans);

    Section mpi = top.child("mpi", keys_of("mpi"));
    mpi.integer("npx", c.mpi.npx, at_least(0));
    mpi.integer("npy", c.mpi.npy, at_least(0));
    c.mpi.source = mpi.has("npx") ? r.loc("mpi.npx") : top.has("mpi") ? r.loc("mpi") : r.file();

    Section adv = top.child("advection", keys_of("advection"));
    adv.choice("scheme", c.advec, advec_names);
    adv.real("cflmax", c.cflmax, positive());

    Section diff = top.child("diffusion", keys_of("diffusion"));
    diff.choice("type", c.diff, diff_names);
    diff.real("nu", c.nu, at_least(0));
    diff.real("kappa", c.kappa, at_least(0));
    diff.real("cs", c.cs, positive());
    diff.real("prandtl_t", c.prandtl_t, positive());
    diff.real("dnmax", c.dnmax, positive());

    Section thermo = top.child("thermo", keys_of("thermo"));
    thermo.choice("type", c.thermo, thermo_names);
    thermo.real("thref", c.thref, positive());
    thermo.real("gravity", c.gravity, at_least(0));
    // A surface pressure in Pa: the saturation adjustment has no meaning far from it (a value
    // in hPa would condense all the water).
    thermo.real("pbot", c.pbot, Limit{2.0e4, 1.2e5, false, false});
    read_scalars(r, top, c);

    Section bc = top.child("boundary", keys_of("boundary"));
    BoundaryConfig& b = c.bc;
    bc.choice("mom_bot", b.mom_bot, mom_bc_names);
    bc.choice("mom_top", b.mom_top, mom_bc_names);
    bc.real("u_bot", b.u_bot);
    bc.real("u_top", b.u_top);
    bc.real("v_bot", b.v_bot);
    bc.real("v_top", b.v_top);
    bc.choice("scalar_bot", b.s_bot, scalar_bc_names);
    bc.real("scalar_bot_value", b.s_bot_value);
    const bool rate_given = bc.real("scalar_bot_rate", b.s_bot_rate);
    read_time_table(r, bc, "scalar_bot", b.s_bot_table);
    if (!b.s_bot_table.empty() && rate_given && b.s_bot_rate != 0)
        r.fail_key("boundary.scalar_bot_rate", "conflicts with the table scalar_bot_times and "
                                               "scalar_bot_values: give one of them");
    bc.choice("scalar_top", b.s_top, scalar_bc_names);
    bc.real("scalar_top_value", b.s_top_value);
    bc.choice("surface_model", b.surface.enabled, surface_names);
    bc.real("z0m", b.surface.z0m, positive());
    bc.real("z0h", b.surface.z0h, positive());
    const bool ustar_given = bc.real("ustar", b.ustar, at_least(0));

    Section sponge = top.child("sponge", keys_of("sponge"));
    sponge.boolean("enabled", c.sponge.enabled);
    sponge.real("zstart", c.sponge.zstart, at_least(0));
    sponge.real("sigma", c.sponge.sigma, at_least(0));
    sponge.integer("beta", c.sponge.beta, at_least(1));

    Section coriolis = top.child("coriolis", keys_of("coriolis"));
    coriolis.real("f", c.coriolis.f);
    coriolis.real("ug", c.coriolis.ug);
    coriolis.real("vg", c.coriolis.vg);

    for (const ScalarConfig& sc : c.scalars) { // forcing_columns points into these
        c.forcing.scalar_tendency[sc.name];
        c.forcing.nudge_scalar[sc.name];
    }
    std::vector<std::string> forcing_keys = {"z", "subsidence_momentum", "nudge_time", "file"};
    for (const auto& col : forcing_columns(c.forcing, c.thermo, c.scalars))
        forcing_keys.push_back(col.first);
    Section forcing = top.child("forcing", forcing_keys);
    forcing.real_list("z", c.forcing.z);
    for (const auto& [name, col] : forcing_columns(c.forcing, c.thermo, c.scalars))
        forcing.real_list(name, *col);
    forcing.boolean("subsidence_momentum", c.forcing.subsidence_momentum);
    forcing.real("nudge_time", c.forcing.nudge_time, at_least(0));
    {
        // The table from a CSV file instead (found beside the case): z and any columns.
        ForcingConfig& fc = c.forcing;
        const auto columns = forcing_columns(fc, c.thermo, c.scalars);
        std::vector<std::string> names;
        for (const auto& col : columns) names.push_back(col.first);
        ProfileTable t;
        if (read_profile_table(r, forcing, "file", names, t)) {
            if (!fc.z.empty())
                r.fail_key("forcing.file", "gives the table that forcing.z and its columns give: "
                                           "give one of them");
            fc.z = t.z;
            for (const auto& [name, col] : columns)
                if (const std::vector<double>* v = t.column(name)) *col = *v;
        }
    }

    Section init = top.child("init", keys_of("init"));
    InitConfig& in = c.init;
    init.choice("type", in.type, init_names);
    init.real("th0", in.th0);
    init.real("lapse_rate", in.lapse_rate);
    init.real("mixed_layer_height", in.mixed_layer_height, at_least(0));
    init.real("perturb_amplitude", in.perturb_amplitude, at_least(0));
    init.real("perturb_velocity", in.perturb_velocity, at_least(0));
    init.real("perturb_height", in.perturb_height, at_least(0));
    init.integer("seed", in.seed, at_least(0));
    init.real("u0", in.u0);
    init.real("v0", in.v0);
    // A th column is read even without a thermo scheme, so that the error below names it.
    const std::string scalar = c.thermo == ThermoType::none ? "th" : scalar_name(c.thermo);
    std::vector<std::string> profile_columns = {scalar, "u", "v"};
    for (const ScalarConfig& sc : c.scalars) profile_columns.push_back(sc.name);
    if (read_profile_table(r, init, "profiles", profile_columns, in.profiles)) {
        if (in.type != InitType::profile)
            r.fail_key("init.profiles", fmt::format("needs init.type profile, got {}",
                                                    name_of(init_names, in.type)));
        if (in.profiles.column(scalar) && c.thermo == ThermoType::none)
            r.fail_key("init.profiles",
                       fmt::format("has a {} column but thermo.type is none", scalar));
    }

    Section time = top.child("time", keys_of("time"));
    time.require("endtime");
    time.integer("rk", c.rk_order, Limit{3, 4}); // RK3 or RK4
    time.real("endtime", c.endtime, at_least(0));
    time.real("dt", c.dt, positive());
    time.real("dtmax", c.dtmax, positive());
    time.boolean("adaptive", c.adaptive_dt);
    time.integer("max_steps", c.max_steps, at_least(-1));
    time.real("walltime_limit", c.walltime_limit, at_least(0));

    Section out = top.child("output", keys_of("output"));
    out.integer("status_every", c.status_every, at_least(1));
    out.real("stats_every", c.stats_every, at_least(0));
    out.string("dir", c.output_dir);
    if (out.string("stats_file", c.stats_file))
        check_file_name(r, "output.stats_file", c.stats_file);
    out.real("checkpoint_every", c.checkpoint_every, at_least(0));
    out.real("checkpoint_wall", c.checkpoint_wall, at_least(0));
    out.integer("checkpoint_keep", c.checkpoint_keep, at_least(1));
    Section cross = out.child("cross", {"every", "fields", "xy", "xz", "yz", "surface"});
    cross.real("every", c.cross.every, at_least(0));
    cross.string_list("fields", c.cross.fields);
    cross.real_list("xy", c.cross.xy);
    cross.real_list("xz", c.cross.xz);
    cross.real_list("yz", c.cross.yz);
    cross.string_list("surface", c.cross.surface);
    Section fout = out.child("fields", {"every", "names", "float32", "checksum"});
    fout.real("every", c.fields_out.every, at_least(0));
    fout.string_list("names", c.fields_out.names);
    fout.boolean("float32", c.fields_out.float32);
    fout.boolean("checksum", c.fields_out.checksum);

    // ---- Rules that involve more than one key -------------------------------------------
    check_forcing(r, c);
    const GridConfig& g = c.grid;
    if (!g.z.empty()) {
        if (int(g.z.size()) != g.ktot)
            r.fail_key("grid.z",
                       fmt::format("has {} levels but grid.ktot = {}", g.z.size(), g.ktot));
        for (std::size_t k = 0; k < g.z.size(); ++k) {
            const std::string key = fmt::format("grid.z[{}]", k);
            if (!(g.z[k] > 0 && g.z[k] < g.zsize))
                r.fail_key(key, fmt::format("{} is outside the domain: levels must lie in (0, "
                                            "grid.zsize = {})",
                                            format_real(g.z[k]), format_real(g.zsize)));
            if (k > 0 && !(g.z[k] > g.z[k - 1]))
                r.fail_key(key, fmt::format("{} is not above grid.z[{}] = {}: levels must be "
                                            "strictly increasing",
                                            format_real(g.z[k]), k - 1, format_real(g.z[k - 1])));
        }
        if (stretch_given && c.grid.stretch == "tanh")
            r.fail_key("grid.stretch", "tanh conflicts with the explicit levels in grid.z; "
                                       "give one of them");
    } else if (c.grid.stretch == "tanh" && !(g.stretch_factor > 0)) {
        r.fail_key(factor_given ? "grid.stretch_factor" : "grid.stretch",
                   "grid.stretch tanh needs grid.stretch_factor > 0");
    }

    if (c.diff == DiffType::constant) {
        if (!(c.nu > 0))
            r.fail_key("diffusion.nu", fmt::format("must be given and > 0 for diffusion.type "
                                                   "constant, got {}",
                                                   format_real(c.nu)));
        if (c.thermo != ThermoType::none && !(c.kappa > 0))
            r.fail_key("diffusion.kappa",
                       fmt::format("must be given and > 0 for diffusion.type "
                                   "constant with thermo.type {}, got {}",
                                   name_of(thermo_names, c.thermo), format_real(c.kappa)));
    }

    if (rate_given && b.s_bot_rate != 0 && b.s_bot != ScalarBc::dirichlet)
        r.fail_key(
            "boundary.scalar_bot_rate",
            fmt::format("changes a surface value in time: needs scalar_bot dirichlet, got {}",
                        name_of(scalar_bc_names, b.s_bot)));
    if (b.surface.enabled) {
        if (c.diff != DiffType::smag2)
            r.fail_key("boundary.surface_model",
                       fmt::format("most requires diffusion.type smag2, got {}",
                                   name_of(diff_names, c.diff)));
        if (c.thermo != ThermoType::none && b.s_bot == ScalarBc::neumann)
            r.fail_key("boundary.scalar_bot",
                       "surface_model most takes a surface flux or a surface value: "
                       "scalar_bot must be flux or dirichlet, got neumann");
        if (c.thermo == ThermoType::moist && b.s_bot == ScalarBc::dirichlet)
            r.fail_key("boundary.scalar_bot",
                       "thermo.type moist takes surface fluxes of thl and qt: scalar_bot must be "
                       "flux, got dirichlet");
        if (b.ustar > 0 && b.s_bot == ScalarBc::dirichlet)
            r.fail_key("boundary.ustar", "a prescribed u* takes a prescribed surface flux: "
                                         "boundary.scalar_bot must be flux, got dirichlet");
        for (const ScalarConfig& sc : c.scalars)
            if (sc.bot != ScalarBc::flux)
                r.fail_key(fmt::format("scalars.{}.bot", sc.name),
                           fmt::format("surface_model most takes a surface flux of every "
                                       "passive scalar: bot must be flux, got {}",
                                       name_of(scalar_bc_names, sc.bot)));
        const double z1 = lowest_level(g);
        for (auto [key, z0] : {std::pair{"z0m", b.surface.z0m}, std::pair{"z0h", b.surface.z0h}})
            if (!(z0 < z1))
                r.fail_key(fmt::format("boundary.{}", key),
                           fmt::format("{} must be below the lowest grid level z = {}",
                                       format_real(z0), format_real(z1)));
    }

    if (ustar_given && b.ustar > 0 && !b.surface.enabled)
        r.fail_key("boundary.ustar", "a prescribed u* needs boundary.surface_model most");
    if (c.thermo == ThermoType::moist && c.scalar_index("qt") < 0)
        r.fail_key("thermo.type", "moist needs the total water as a passive scalar: give "
                                  "scalars.qt (kg/kg, its boundary conditions and initial value)");
    if (c.thermo == ThermoType::moist) {
        // Total water is a mass fraction: the initial state must not have a negative one.
        const ScalarConfig& qt = c.scalars[std::size_t(c.scalar_index("qt"))];
        const std::vector<double>* col = in.profiles.column("qt");
        if (!col && qt.init_value < 0)
            r.fail_key("scalars.qt.init_value",
                       fmt::format("{} is negative: qt is a mass fraction (kg/kg)",
                                   format_real(qt.init_value)));
        for (std::size_t n = 0; col && n < col->size(); ++n)
            if ((*col)[n] < 0)
                r.fail_key("init.profiles",
                           fmt::format("qt[{}] = {} is negative: qt is a mass fraction (kg/kg)", n,
                                       format_real((*col)[n])));
    }
    if (c.diff == DiffType::constant && !c.scalars.empty() && !(c.kappa > 0))
        r.fail_key("diffusion.kappa", fmt::format("must be given and > 0 for diffusion.type "
                                                  "constant with scalars, got {}",
                                                  format_real(c.kappa)));

    if (c.tendencies == Tendencies::fused && !fused_tendencies_available(c))
        r.fail_key("model.tendencies",
                   fmt::format("fused needs advection.scheme 2i5 with diffusion.type smag2, "
                               "or 2 with constant, and thermo.type dry, buoy or moist (the fused "
                               "kernels), got {}, {} and {}; use separate or auto",
                               name_of(advec_names, c.advec), name_of(diff_names, c.diff),
                               name_of(thermo_names, c.thermo)));

    if (!(c.sponge.zstart < g.zsize))
        r.fail_key("sponge.zstart",
                   fmt::format("{} must be below grid.zsize = {}", format_real(c.sponge.zstart),
                               format_real(g.zsize)));

    if (c.thermo == ThermoType::dry && !(in.th0 > 0))
        r.fail_key("init.th0", fmt::format("must be > 0 (a potential temperature in K) with "
                                           "thermo.type dry, got {}",
                                           format_real(in.th0)));

    // Model time is an int64 count of nanoseconds (model.h): every time and interval must be
    // at least one unit, and a time plus an interval must still fit in 2^63 ns (9.22e9 s).
    constexpr double time_unit = 1e-9, time_max = 4.6e9;
    for (auto [key, v] :
         {std::pair{"time.endtime", c.endtime}, std::pair{"time.dt", c.dt},
          std::pair{"time.dtmax", c.dtmax}, std::pair{"output.stats_every", c.stats_every},
          std::pair{"output.cross.every", c.cross.every},
          std::pair{"output.fields.every", c.fields_out.every}})
        if (!(v < time_max))
            r.fail_key(key, fmt::format("{} s is too large: model time is a 64-bit count of "
                                        "nanoseconds, so times and intervals must be below {} s",
                                        format_real(v), format_real(time_max)));
    for (auto [key, v] : {std::pair{"time.dt", c.dt}, std::pair{"time.dtmax", c.dtmax},
                          std::pair{"output.stats_every", c.stats_every},
                          std::pair{"output.cross.every", c.cross.every},
                          std::pair{"output.fields.every", c.fields_out.every}})
        if (v > 0 && v < time_unit)
            r.fail_key(key, fmt::format("{} s is below the model's time unit of 1e-09 s (1 ns){}",
                                        format_real(v), off_hint(key)));
    check_output_fields(r, c);

    if (c.dt > c.dtmax)
        r.fail_key("time.dt", fmt::format("{} exceeds time.dtmax = {}", format_real(c.dt),
                                          format_real(c.dtmax)));
}

} // namespace
} // namespace cfg

bool fused_tendencies_available(const Config& c) {
    const bool pair = (c.advec == AdvecScheme::second_i5 && c.diff == DiffType::smag2) ||
                      (c.advec == AdvecScheme::second && c.diff == DiffType::constant);
    return pair && (c.thermo == ThermoType::dry || c.thermo == ThermoType::buoy ||
                    c.thermo == ThermoType::moist);
}

bool runs_fused_tendencies(const Config& c) {
    if (!fused_tendencies_available(c)) return false;
    if (c.tendencies == Tendencies::automatic) // measured faster on the GPU, both pairs
        return c.backend == Backend::gpu;
    return c.tendencies == Tendencies::fused;
}

bool runs_scalar_stage_in_tendencies(const Config& c) {
    // The forcing adds to the scalar's tendency after the fused kernels, like the sponge kernel.
    return runs_fused_tendencies(c) && (!c.sponge.enabled || c.diff == DiffType::smag2) &&
           !c.forcing.scalar_forced();
}

std::string default_resolved_yaml() {
    return cfg::emit_resolved(Config{});
}

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
    YAML::Node root = cfg::parse_file(path);
    const auto from_command_line = cfg::apply_overrides(root, overrides);
    if (root.IsNull()) throw ConfigError(fmt::format("{}: the case file is empty", path));
    cfg::CaseReader r(path, root);
    for (const auto& key : from_command_line) r.mark_override(key);

    Config c;
    c.file = path;
    c.name = std::filesystem::path(path).stem().string();
    cfg::read_sections(r, c);

    // Resolve the defaults that depend on other keys, so the printed configuration is
    // exactly what runs.
    if (c.cflmax < 0) c.cflmax = c.advec == AdvecScheme::second ? 1.2 : 1.0;
    if (c.stats_file.empty()) c.stats_file = c.name + ".stats.h5";
    c.resolved_yaml = cfg::emit_resolved(c);
    return c;
}

} // namespace squall

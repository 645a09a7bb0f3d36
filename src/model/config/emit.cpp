// The resolved configuration as YAML: every key of docs/case-schema.md, defaults
// included, in the same layout as a case file, so it reads back through load_config().
#include "model/config/reader.h"

#include <fmt/format.h>

namespace squall::cfg {

std::string format_real(double v) {
    // fmt's shortest round-trip form: 0.1 stays "0.1" and reads back bit for bit.
    return fmt::format("{}", v);
}

namespace {

class Writer {
public:
    explicit Writer(YAML::Emitter& e) : e_(e) {}
    void begin(const char* section) { e_ << YAML::Key << section << YAML::Value << YAML::BeginMap; }
    void end() { e_ << YAML::EndMap; }
    void real(const char* key, double v) {
        e_ << YAML::Key << key << YAML::Value << format_real(v);
    }
    template <typename Int>
    void integer(const char* key, Int v) {
        e_ << YAML::Key << key << YAML::Value << fmt::format("{}", v);
    }
    void boolean(const char* key, bool v) {
        e_ << YAML::Key << key << YAML::Value << (v ? "true" : "false");
    }
    // Strings are quoted whenever the emitter sees fit (e.g. "2", "1e3", "yes").
    void text(const char* key, const std::string& v) { e_ << YAML::Key << key << YAML::Value << v; }
    void quoted(const char* key, const std::string& v) {
        e_ << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << v;
    }
    void texts(const char* key, const std::vector<std::string>& v) {
        e_ << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (const auto& x : v) e_ << x;
        e_ << YAML::EndSeq;
    }
    void reals(const char* key, const std::vector<double>& v) {
        e_ << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (double x : v) e_ << format_real(x);
        e_ << YAML::EndSeq;
    }

private:
    YAML::Emitter& e_;
};

} // namespace

std::string emit_resolved(const Config& c) {
    YAML::Emitter e;
    Writer w(e);
    e << YAML::BeginMap;
    w.text("name", c.name);

    w.begin("model");
    w.text("precision", name_of(precision_names, c.precision));
    w.text("backend", name_of(backend_names, c.backend));
    w.text("tendencies", name_of(tendencies_names, c.tendencies));
    w.end();

    const GridConfig& g = c.grid;
    w.begin("grid");
    w.integer("itot", g.itot);
    w.integer("jtot", g.jtot);
    w.integer("ktot", g.ktot);
    w.real("xsize", g.xsize);
    w.real("ysize", g.ysize);
    w.real("zsize", g.zsize);
    w.reals("z", g.z); // [] means: levels from the stretching rule
    w.text("stretch", g.stretch);
    w.real("stretch_factor", g.stretch_factor);
    w.real("utrans", g.utrans);
    w.real("vtrans", g.vtrans);
    w.end();

    w.begin("mpi");
    w.integer("npx", c.mpi.npx);
    w.integer("npy", c.mpi.npy);
    w.end();

    w.begin("advection");
    w.quoted("scheme", name_of(advec_names, c.advec));
    w.real("cflmax", c.cflmax);
    w.end();

    w.begin("diffusion");
    w.text("type", name_of(diff_names, c.diff));
    w.real("nu", c.nu);
    w.real("kappa", c.kappa);
    w.real("cs", c.cs);
    w.real("prandtl_t", c.prandtl_t);
    w.real("dnmax", c.dnmax);
    w.end();

    w.begin("thermo");
    w.text("type", name_of(thermo_names, c.thermo));
    w.real("thref", c.thref);
    w.real("gravity", c.gravity);
    w.real("pbot", c.pbot);
    w.end();

    if (!c.scalars.empty()) {
        w.begin("scalars");
        for (const ScalarConfig& sc : c.scalars) {
            w.begin(sc.name.c_str());
            w.text("bot", name_of(scalar_bc_names, sc.bot));
            w.real("bot_value", sc.bot_value);
            if (!sc.bot_table.empty()) {
                w.reals("bot_times", sc.bot_table.times);
                w.reals("bot_values", sc.bot_table.values);
            }
            w.text("top", name_of(scalar_bc_names, sc.top));
            w.real("top_value", sc.top_value);
            w.real("init_value", sc.init_value);
            w.real("perturb_amplitude", sc.perturb_amplitude);
            w.end();
        }
        w.end();
    }

    const BoundaryConfig& b = c.bc;
    w.begin("boundary");
    w.text("mom_bot", name_of(mom_bc_names, b.mom_bot));
    w.text("mom_top", name_of(mom_bc_names, b.mom_top));
    w.real("u_bot", b.u_bot);
    w.real("u_top", b.u_top);
    w.real("v_bot", b.v_bot);
    w.real("v_top", b.v_top);
    w.text("scalar_bot", name_of(scalar_bc_names, b.s_bot));
    w.real("scalar_bot_value", b.s_bot_value);
    w.real("scalar_bot_rate", b.s_bot_rate);
    if (!b.s_bot_table.empty()) {
        w.reals("scalar_bot_times", b.s_bot_table.times);
        w.reals("scalar_bot_values", b.s_bot_table.values);
    }
    w.text("scalar_top", name_of(scalar_bc_names, b.s_top));
    w.real("scalar_top_value", b.s_top_value);
    w.text("surface_model", name_of(surface_names, b.surface.enabled));
    w.real("z0m", b.surface.z0m);
    w.real("z0h", b.surface.z0h);
    w.real("ustar", b.ustar);
    w.end();

    w.begin("sponge");
    w.boolean("enabled", c.sponge.enabled);
    w.real("zstart", c.sponge.zstart);
    w.real("sigma", c.sponge.sigma);
    w.integer("beta", c.sponge.beta);
    w.end();

    w.begin("coriolis");
    w.real("f", c.coriolis.f);
    w.real("ug", c.coriolis.ug);
    w.real("vg", c.coriolis.vg);
    w.end();

    w.begin("forcing");
    w.reals("z", c.forcing.z);
    w.boolean("subsidence_momentum", c.forcing.subsidence_momentum);
    w.real("nudge_time", c.forcing.nudge_time);
    for (const auto& [name, col] : forcing_columns(c.forcing, c.thermo, c.scalars))
        w.reals(name.c_str(), *col);
    w.end();

    const InitConfig& in = c.init;
    w.begin("init");
    w.text("type", name_of(init_names, in.type));
    w.real("th0", in.th0);
    w.real("lapse_rate", in.lapse_rate);
    w.real("mixed_layer_height", in.mixed_layer_height);
    w.real("perturb_amplitude", in.perturb_amplitude);
    w.real("perturb_velocity", in.velocity_amplitude());
    w.real("perturb_height", in.perturb_height);
    w.integer("seed", in.seed);
    w.real("u0", in.u0);
    w.real("v0", in.v0);
    if (!in.profiles.empty()) { // inline even when read from a file: the run's full record
        w.begin("profiles");
        w.reals("z", in.profiles.z);
        for (const auto& [name, col] : in.profiles.columns) w.reals(name.c_str(), col);
        w.end();
    }
    w.end();

    w.begin("time");
    w.integer("rk", c.rk_order);
    w.real("endtime", c.endtime);
    w.real("dt", c.dt);
    w.real("dtmax", c.dtmax);
    w.boolean("adaptive", c.adaptive_dt);
    w.integer("max_steps", c.max_steps);
    w.real("walltime_limit", c.walltime_limit);
    w.end();

    w.begin("output");
    w.integer("status_every", c.status_every);
    w.real("stats_every", c.stats_every);
    w.text("dir", c.output_dir);
    w.text("stats_file", c.stats_file);
    w.real("checkpoint_every", c.checkpoint_every);
    w.real("checkpoint_wall", c.checkpoint_wall);
    w.integer("checkpoint_keep", c.checkpoint_keep);
    w.begin("cross");
    w.real("every", c.cross.every);
    w.texts("fields", c.cross.fields);
    w.reals("xy", c.cross.xy);
    w.reals("xz", c.cross.xz);
    w.reals("yz", c.cross.yz);
    w.texts("surface", c.cross.surface);
    w.end();
    w.begin("fields");
    w.real("every", c.fields_out.every);
    w.texts("names", c.fields_out.names);
    w.boolean("float32", c.fields_out.float32);
    w.boolean("checksum", c.fields_out.checksum);
    w.end();
    w.end();

    e << YAML::EndMap;
    return std::string(e.c_str()) + "\n";
}

} // namespace squall::cfg

// The case's physics sections whose keys the case names or which tables fill: the passive
// scalars (scalars.<name>), the forcing's columns, and values given as tables in time.
#include "model/config/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace squall::cfg {

namespace {

// The names of a scalar's statistics (stats.cpp, put_scalar): its own and these suffixes.
const std::vector<std::string>& scalar_stat_suffixes() {
    static const std::vector<std::string> s = {"",      "2",     "_flux_res", "_flux_sgs",
                                               "_flux", "_mean", "_fluxbot"};
    return s;
}

// What else has the name n (the statistics' own names, those of the thermo scalar and the
// fields), or nullptr.
const char* taken_by(const std::string& n, const std::string& thermo_scalar) {
    static const std::vector<std::string> fixed = {"u",
                                                   "v",
                                                   "w",
                                                   "p",
                                                   "th",
                                                   "b",
                                                   "thl",
                                                   "thv",
                                                   "ql",
                                                   "evisc",
                                                   "ke",
                                                   "zi",
                                                   "dt",
                                                   "cfl",
                                                   "dn",
                                                   "div",
                                                   "time",
                                                   "z",
                                                   "zh",
                                                   "x",
                                                   "xh",
                                                   "y",
                                                   "yh",
                                                   "ustar",
                                                   "w2",
                                                   "w3",
                                                   "w_skew",
                                                   "obuk",
                                                   "obuk_inv",
                                                   "lwp",
                                                   "u2",
                                                   "v2",
                                                   "p2",
                                                   "u_flux",
                                                   "v_flux",
                                                   "u_flux_res",
                                                   "v_flux_res",
                                                   "u_flux_sgs",
                                                   "v_flux_sgs",
                                                   "u_fluxbot",
                                                   "v_fluxbot",
                                                   "h_stress",
                                                   "tke_shear",
                                                   "tke_buoy",
                                                   "tke_turb",
                                                   "tke_pres",
                                                   "tke_diss",
                                                   "zcb",
                                                   "zct",
                                                   "cloud_cover",
                                                   "cloud_fraction",
                                                   "thv_flux_res",
                                                   "step"};
    if (std::find(fixed.begin(), fixed.end(), n) != fixed.end() || n.rfind("vort_", 0) == 0)
        return "another field or statistic";
    for (const std::string& suffix : scalar_stat_suffixes())
        if (!thermo_scalar.empty() && n == thermo_scalar + suffix)
            return "a statistic of the thermodynamic scalar";
    return nullptr;
}

} // namespace

// The forcing tables: one value per forcing.z in each given column, heights increasing, and
// each part's prerequisites.
void check_forcing(CaseReader& r, const Config& c) {
    const ForcingConfig& fc = c.forcing;
    const auto columns = forcing_columns(fc, c.thermo, c.scalars);
    bool any = false;
    for (const auto& [name, col] : columns) {
        if (col->empty()) continue;
        any = true;
        if (col->size() != fc.z.size())
            r.fail_key(fmt::format("forcing.{}", name),
                       fmt::format("has {} values but forcing.z has {}: give one per height",
                                   col->size(), fc.z.size()));
    }
    if (!fc.z.empty() && !any)
        r.fail_key("forcing.z",
                   "has heights but no column: give th_tendency, w_ls, nudge_*, ug or vg");
    for (std::size_t k = 1; k < fc.z.size(); ++k)
        if (!(fc.z[k] > fc.z[k - 1]))
            r.fail_key(fmt::format("forcing.z[{}]", k),
                       fmt::format("{} is not above forcing.z[{}] = {}: heights must be "
                                   "strictly increasing",
                                   format_real(fc.z[k]), k - 1, format_real(fc.z[k - 1])));
    if (c.thermo == ThermoType::none)
        for (const auto& [name, col] : {columns[0], columns[2]}) // th_tendency, nudge_th
            if (!col->empty())
                r.fail_key(fmt::format("forcing.{}", name),
                           "needs a scalar: thermo.type dry or buoy");
    bool targets = !fc.nudge_th.empty() || !fc.nudge_u.empty() || !fc.nudge_v.empty();
    for (const auto& [name, col] : fc.nudge_scalar) targets |= !col.empty();
    if (fc.nudge_time > 0 && !targets)
        r.fail_key("forcing.nudge_time",
                   "nudges towards nothing: give nudge_th, nudge_u or nudge_v");
    if (fc.nudge_time == 0 && targets)
        for (const auto& [name, col] : columns)
            if (name.rfind("nudge_", 0) == 0 && !col->empty())
                r.fail_key(fmt::format("forcing.{}", name),
                           "needs forcing.nudge_time > 0 (the relaxation time scale, s)");
    if (fc.subsidence_momentum && !fc.subsidence())
        r.fail_key("forcing.subsidence_momentum", "needs the subsidence profile forcing.w_ls");
    if ((!fc.ug.empty() || !fc.vg.empty()) && !c.coriolis.enabled())
        r.fail_key(fc.ug.empty() ? "forcing.vg" : "forcing.ug",
                   "is the geostrophic wind of the Coriolis force: needs coriolis.f != 0");
}

// <prefix>_times and <prefix>_values of `sec`, a table in time: both or neither, as many
// values as times, the times strictly increasing.
void read_time_table(CaseReader& r, Section& sec, const std::string& prefix, TimeTable& t) {
    const bool times = sec.real_list(prefix + "_times", t.times);
    const bool values = sec.real_list(prefix + "_values", t.values);
    const std::string tk = sec.dotted(prefix + "_times"), vk = sec.dotted(prefix + "_values");
    if (times != values || (times && t.times.empty()))
        r.fail_key(times ? tk : vk, fmt::format("needs {} too: the table gives a value at each "
                                                "time (s)",
                                                times ? vk : tk));
    if (t.values.size() != t.times.size())
        r.fail_key(vk, fmt::format("has {} values but {} has {}: give one per time",
                                   t.values.size(), tk, t.times.size()));
    for (std::size_t n = 1; n < t.times.size(); ++n)
        if (!(t.times[n] > t.times[n - 1]))
            r.fail_key(fmt::format("{}[{}]", tk, n),
                       fmt::format("{} is not after {}[{}] = {}: times must be strictly "
                                   "increasing",
                                   format_real(t.times[n]), tk, n - 1,
                                   format_real(t.times[n - 1])));
}

// scalars: a map from each passive scalar's name to its settings.
void read_scalars(CaseReader& r, Section& top, Config& c) {
    Section all = top.child_of_names("scalars");
    for (const std::string& name : all.keys_given()) {
        const bool word = !name.empty() && std::islower(static_cast<unsigned char>(name[0])) &&
                          std::all_of(name.begin(), name.end(), [](unsigned char ch) {
                              return std::islower(ch) || std::isdigit(ch) || ch == '_';
                          });
        if (!word)
            r.fail_key(all.dotted(name), fmt::format("'{}' is not a scalar name: use lower-case "
                                                     "letters, digits and '_', starting with a "
                                                     "letter",
                                                     name));
        const char* taken = taken_by(name, scalar_name(c.thermo));
        // A statistic of a scalar given before (its variance qt2, its flux qt_flux, ...), or
        // one whose statistics would take a name given before.
        for (const ScalarConfig& other : c.scalars)
            for (const std::string& a : scalar_stat_suffixes())
                for (const std::string& b : scalar_stat_suffixes())
                    if (other.name + a == name + b) taken = "a statistic of another scalar";
        if (taken)
            r.fail_key(all.dotted(name),
                       fmt::format("'{}' names {}: choose another name", name, taken));
        ScalarConfig sc;
        sc.name = name;
        Section s = all.child(name, {"bot", "bot_value", "bot_times", "bot_values", "top",
                                     "top_value", "init_value", "perturb_amplitude"});
        s.choice("bot", sc.bot, scalar_bc_names);
        s.real("bot_value", sc.bot_value);
        read_time_table(r, s, "bot", sc.bot_table);
        s.choice("top", sc.top, scalar_bc_names);
        s.real("top_value", sc.top_value);
        s.real("init_value", sc.init_value);
        s.real("perturb_amplitude", sc.perturb_amplitude, at_least(0));
        c.scalars.push_back(sc);
    }
}

} // namespace squall::cfg

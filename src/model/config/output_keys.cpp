// The output section's lists: the fields of the cross-sections and 3-D files, their
// positions, and the 2-D surface sections each case can write.
#include "model/config/reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <tuple>

namespace squall::cfg {

// Names and positions of output.cross and output.fields.
void check_output_fields(CaseReader& r, const Config& c) {
    const std::string scalar = scalar_name(c.thermo);
    auto check_names = [&](const char* key, const std::vector<std::string>& names, bool derived) {
        std::vector<std::string> valid = {"u", "v", "w"};
        if (!scalar.empty()) valid.push_back(scalar);
        for (const ScalarConfig& sc : c.scalars) valid.push_back(sc.name);
        if (c.thermo == ThermoType::moist)
            for (const char* n : {"ql", "thv"}) valid.push_back(n);
        if (c.diff == DiffType::smag2) valid.push_back("evisc");
        if (derived)
            for (const char* n : {"w2", "vort_x", "vort_y", "vort_z"}) valid.push_back(n);
        for (std::size_t n = 0; n < names.size(); ++n) {
            const std::string k = fmt::format("{}[{}]", key, n);
            if (std::find(valid.begin(), valid.end(), names[n]) == valid.end())
                r.fail_key(k, fmt::format("unknown field '{}'; this case has: {}", names[n],
                                          fmt::join(valid, ", ")));
            if (std::find(names.begin(), names.begin() + long(n), names[n]) !=
                names.begin() + long(n))
                r.fail_key(k, fmt::format("'{}' is listed twice", names[n]));
        }
    };
    check_names("output.cross.fields", c.cross.fields, true);
    check_names("output.fields.names", c.fields_out.names, false);
    const GridConfig& g = c.grid;
    for (auto [key, list, size, axis] :
         {std::tuple{"output.cross.xy", &c.cross.xy, g.zsize, "grid.zsize"},
          std::tuple{"output.cross.xz", &c.cross.xz, g.ysize, "grid.ysize"},
          std::tuple{"output.cross.yz", &c.cross.yz, g.xsize, "grid.xsize"}})
        for (std::size_t n = 0; n < list->size(); ++n)
            if (!((*list)[n] >= 0 && (*list)[n] <= size))
                r.fail_key(fmt::format("{}[{}]", key, n),
                           fmt::format("{} is outside the domain [0, {} = {}]",
                                       format_real((*list)[n]), axis, format_real(size)));
    // The surface fields: the surface layer's arrays.
    // The 2-D fields: the surface layer's arrays, and moist's liquid water path and cloud base.
    std::vector<std::string> surface_valid;
    if (c.bc.surface.enabled) {
        surface_valid = {"ustar", "obuk_inv", "u_fluxbot", "v_fluxbot"};
        if (!scalar.empty()) surface_valid.push_back(scalar + "_fluxbot");
        for (const ScalarConfig& sc : c.scalars) surface_valid.push_back(sc.name + "_fluxbot");
    }
    if (c.thermo == ThermoType::moist)
        for (const char* n : {"lwp", "zcb"}) surface_valid.push_back(n);
    for (std::size_t n = 0; n < c.cross.surface.size(); ++n) {
        const std::string k = fmt::format("output.cross.surface[{}]", n);
        const std::string& name = c.cross.surface[n];
        if (surface_valid.empty())
            r.fail_key(k, "surface fields need boundary.surface_model most (or thermo.type moist "
                          "for lwp and zcb)");
        if (std::find(surface_valid.begin(), surface_valid.end(), name) == surface_valid.end())
            r.fail_key(k, fmt::format("unknown surface field '{}'; this case has: {}", name,
                                      fmt::join(surface_valid, ", ")));
        if (std::count(c.cross.surface.begin(), c.cross.surface.begin() + long(n), name))
            r.fail_key(k, fmt::format("'{}' is listed twice", name));
    }
    const bool positions = !c.cross.xy.empty() || !c.cross.xz.empty() || !c.cross.yz.empty();
    if (c.cross.every > 0 && c.cross.fields.empty() && (positions || c.cross.surface.empty()))
        r.fail_key("output.cross.fields", "output.cross.every > 0 needs at least one field "
                                          "(or only output.cross.surface)");
    if (c.cross.every > 0 && !c.cross.fields.empty() && !positions)
        r.fail_key("output.cross.xy", "output.cross.every > 0 needs at least one position in "
                                      "output.cross.xy, xz or yz");
    if (c.fields_out.every > 0 && c.fields_out.names.empty())
        r.fail_key("output.fields.names", "output.fields.every > 0 needs at least one field");
}

} // namespace squall::cfg

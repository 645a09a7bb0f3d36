// KernelDef <-> JSON: how captures store a definition and replay reads it back. Every
// expression is stored as text and read back through the text path.
#include "runtime/kernel_def.h"

#include <nlohmann/json.hpp>

namespace squall::rt {

namespace {
nlohmann::json arg_json(const ArgDef& a) {
    nlohmann::json j = {{"name", a.name}, {"array", a.is_array}};
    if (a.is_struct()) {
        j["struct_bytes"] = a.struct_bytes;
        j["members"] = nlohmann::json::array();
        for (const auto& m : a.members) j["members"].push_back(arg_json(m));
        return j;
    }
    j["type"] = dtype_name(a.dtype);
    j["access"] = access_name(a.access);
    j["count"] = a.count;
    if (a.offset) j["offset"] = a.offset;
    if (a.partials != Partials::none) j["partials"] = a.partials == Partials::sum ? "sum" : "max";
    return j;
}

ArgDef arg_from_json(const nlohmann::json& j) {
    ArgDef a;
    a.name = j.at("name").get<std::string>();
    a.is_array = j.at("array").get<bool>();
    if (j.contains("struct_bytes")) {
        a.struct_bytes = j.at("struct_bytes").get<size_t>();
        for (const auto& m : j.at("members")) a.members.push_back(arg_from_json(m));
        return a;
    }
    a.dtype = dtype_from_name(j.at("type"));
    a.access = access_from_name(j.at("access"));
    a.count = j.at("count").get<std::string>();
    a.offset = j.value("offset", size_t(0));
    const std::string partials = j.value("partials", "");
    a.partials = partials == "sum"   ? Partials::sum
                 : partials == "max" ? Partials::max
                                     : Partials::none;
    return a;
}
} // namespace

nlohmann::json KernelDef::to_json(bool with_sources) const {
    using nlohmann::json;
    auto text_json = [](const TextOrExpr& t) {
        return json{{"expr", t.is_expr}, {"text", t.text}};
    };
    json targs = json::array(), defs = json::array(), args = json::array();
    for (const auto& t : template_args_) targs.push_back(text_json(t.value));
    for (const auto& d : defines_) {
        json j = text_json(d.value);
        j["name"] = d.name;
        defs.push_back(j);
    }
    for (const auto& a : args_) args.push_back(arg_json(a));
    json j = {{"function", function_name_},
              {"key", key_},
              {"main_file", main_file_},
              {"space", space_.to_json()},
              {"template_args", targs},
              {"defines", defs},
              {"flags", flags_},
              {"block_size", block_},
              {"grid", grid_follows_block_ ? block_ : grid_},
              {"grid_is_divisor", grid_is_divisor_},
              {"shared_memory", smem_},
              {"carveout", carveout_},
              {"launch_bounds", {lb_threads_, lb_blocks_}},
              {"args", args}};
    if (!map_defs_.empty()) {
        json maps = json::array();
        for (const auto& m : map_defs_)
            maps.push_back({{"array", m.array},
                            {"offset", m.offset},
                            {"dims", m.dims},
                            {"box", m.box},
                            {"when", m.when}});
        j["tensor_maps"] = maps;
    }
    if (with_sources) j["sources"] = sources_->to_json();
    return j;
}

KernelDef KernelDef::from_json(const nlohmann::json& j) {
    auto sources = std::make_shared<const SourceSet>(SourceSet::from_json(j.at("sources")));
    KernelDef k(j.at("function").get<std::string>(), sources, j.at("main_file").get<std::string>());
    k.key_ = j.at("key").get<std::string>();
    ConfigSpace space = ConfigSpace::from_json(j.at("space"));
    for (const auto& p : space.params()) k.tune(p.name, p.values, p.default_value);
    for (const auto& r : space.restrictions()) k.restriction(r.text());
    for (const Config& c : space.starts()) {
        std::vector<std::pair<std::string, Value>> values;
        for (size_t p = 0; p < c.values.size(); ++p)
            values.emplace_back(space.params()[p].name, c.values[p]);
        k.start_point(values);
    }
    auto text = [](const nlohmann::json& t) {
        std::string s = t.at("text").get<std::string>();
        return t.at("expr").get<bool>() ? TextOrExpr(expr(s)) : TextOrExpr(s);
    };
    std::vector<TextOrExpr> targs;
    for (const auto& t : j.at("template_args")) targs.push_back(text(t));
    k.template_args(std::move(targs));
    for (const auto& d : j.at("defines")) k.define(d.at("name").get<std::string>(), text(d));
    k.compiler_flags(j.at("flags").get<std::vector<std::string>>());
    auto b = j.at("block_size").get<std::array<std::string, 3>>();
    k.block_size(b[0], b[1], b[2]);
    auto g = j.at("grid").get<std::array<std::string, 3>>();
    if (j.at("grid_is_divisor").get<bool>()) {
        if (g != b) k.grid_divisors(g[0], g[1], g[2]);
    } else {
        k.grid_size(g[0], g[1], g[2]);
    }
    k.shared_memory(j.at("shared_memory").get<std::string>());
    if (const std::string c = j.value("carveout", std::string("-1")); c != "-1")
        k.preferred_carveout(c);
    auto lb = j.at("launch_bounds").get<std::array<std::string, 2>>();
    if (!lb[0].empty()) k.launch_bounds(lb[0], lb[1]);
    for (const auto& a : j.at("args")) k.args_.push_back(arg_from_json(a));
    if (j.contains("tensor_maps"))
        for (const auto& m : j.at("tensor_maps"))
            k.tensor_map(m.at("array").get<std::string>(), m.at("offset").get<long long>(),
                         m.at("dims").get<std::array<long long, 3>>(),
                         m.at("box").get<std::array<std::string, 3>>(),
                         m.at("when").get<std::string>());
    return k;
}

} // namespace squall::rt

#include "backends/cuda/declared.h"

#include <fmt/format.h>

namespace squall::gpu {

namespace {
const char* use_name(sq::Use use) {
    return use == sq::Use::in ? "in" : use == sq::Use::out ? "out" : "inout";
}
} // namespace

Declarer& Declarer::add(const char* name, const void* at, size_t size, Shape shape, sq::Use use) {
    const size_t offset = size_t(static_cast<const char*>(at) - static_cast<const char*>(base_));
    members_.push_back({name, shape, use, offset, size});
    return *this;
}

void Declarer::mismatch(const char* name, sq::Use use) const {
    throw std::logic_error(fmt::format("kernel '{}': member '{}' declared '{}', but a const "
                                       "pointer is read (in) and a non-const one written "
                                       "(out or inout)",
                                       kernel_, name, use_name(use)));
}

std::vector<Member> Declarer::finish(size_t struct_size, size_t struct_members) && {
    size_t end = 0, align = 1;
    for (const Member& m : members_) {
        const size_t expected = (end + m.size - 1) / m.size * m.size;
        if (m.offset != expected)
            throw std::logic_error(fmt::format(
                "kernel '{}': the declaration lists '{}' where the struct has byte {}, but '{}' "
                "is at byte {} (a member left out of declare(), or listed out of order)",
                kernel_, m.name, expected, m.name, m.offset));
        end = m.offset + m.size;
        align = std::max(align, m.size);
    }
    end = (end + align - 1) / align * align;
    if (end != struct_size)
        throw std::logic_error(fmt::format("kernel '{}': the declaration covers {} bytes, but the "
                                           "struct has {} (a member left out of declare())",
                                           kernel_, end, struct_size));
    if (members_.size() != struct_members)
        throw std::logic_error(fmt::format("kernel '{}': the declaration lists {} members, but "
                                           "the struct has {}",
                                           kernel_, members_.size(), struct_members));
    return std::move(members_);
}

} // namespace squall::gpu

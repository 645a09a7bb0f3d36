#pragma once
// What a kernel struct must and may provide (sq::Kernel), checked by the compiler at every
// launch (backends/launch.h): a partial declaration, a member its declare() leaves out or a
// trait stated outside sq::Traits does not build. tests/kernels/contract holds declarations
// it must refuse. Host checks only; NVRTC parses this file but instantiates nothing here.
#include "common.cuh"

namespace sq {

namespace contract {

template <class A, class B>
inline constexpr bool same = false;
template <class A>
inline constexpr bool same<A, A> = true;

// Counts the members a declaration lists (declare.cuh), at compile time.
struct Counter {
    int n = 0;
    template <class M>
    constexpr Counter& one(const M&) {
        ++n;
        return *this;
    }
    template <class M>
    constexpr Counter& field(const char*, const M& m, Use = Use::in) {
        return one(m);
    }
    template <class M>
    constexpr Counter& profile(const char*, const M& m, Use = Use::in) {
        return one(m);
    }
    template <class M>
    constexpr Counter& plane(const char*, const M& m, Use = Use::in) {
        return one(m);
    }
    template <class M>
    constexpr Counter& buffer(const char*, const M& m, Use = Use::in) {
        return one(m);
    }
    template <class M>
    constexpr Counter& scalar(const char*, const M& m) {
        return one(m);
    }
    // The runs of read members: fields(SQ_ARG(u), SQ_ARG(v)) lists name, member pairs.
    template <class... A>
    constexpr Counter& fields(const A&...) {
        n += int(sizeof...(A)) / 2;
        return *this;
    }
    template <class... A>
    constexpr Counter& profiles(const A&... a) {
        return fields(a...);
    }
    template <class... A>
    constexpr Counter& planes(const A&... a) {
        return fields(a...);
    }
    template <class... A>
    constexpr Counter& buffers(const A&... a) {
        return fields(a...);
    }
    template <class... A>
    constexpr Counter& scalars(const A&... a) {
        return fields(a...);
    }
};

// The number of members of an aggregate: the most initialisers F{...} accepts.
struct AnyValue {
    template <class V>
    operator V() const;
};
template <class F, class... A>
constexpr int aggregate_members() {
    if constexpr (requires { F{A{}..., AnyValue{}}; })
        return aggregate_members<F, A..., AnyValue>();
    else
        return int(sizeof...(A));
}

template <class F>
constexpr int declared_members() {
    const F f{};
    Counter c;
    f.declare(c);
    return c.n;
}

// The members: a unique name and a declaration (declare.cuh) that lists every member.
template <class F>
concept Named = requires {
    {F::name[0]};
}
&&same<decltype(F::name), const char* const>;
template <class F>
concept Declared = requires(const F& f, Counter& c) {
    f.declare(c);
}
&&(declared_members<F>() == aggregate_members<F>());

// Traits only through `traits`, of type sq::Traits: the names once probed one by one are
// refused, so no kernel states a trait where no backend looks.
template <class F>
concept TraitsStatedOnce = (!requires { F::traits; } ||
                            same<decltype(F::traits), const Traits>)&&!requires {
    F::wall_levels;
}
&&!requires {
    F::on_w_levels;
}
&&!requires {
    F::summed;
}
&&!requires {
    F::promise_interior;
};

// The forms a backend maps onto points (kernels/README.md): operator()(i, j, k) returning
// void, or the point's value (a reduction), or operator()(i, j) (per column).
template <class F>
concept PointForm = requires(const F& f) {
    {f(0, 0, 0)};
};
template <class F>
concept ColumnForm = requires(const F& f) {
    {f(0, 0)};
};
template <class F>
concept Reduction = PointForm<F> && !same<decltype(F{}(0, 0, 0)), void>;

template <class F>
concept TraitsFit = (!traits_v<F>.summed ||
                     Reduction<F>)&&(!traits_v<F>.on_w_levels ||
                                     PointForm<F>)&&(traits_v<F>.wall_levels < 0 ||
                                                     requires(F f) {
                                                         f.kstart = 0;
                                                         f.kend = 0;
                                                     }) &&
                    (!traits_v<F>.promise_interior || traits_v<F>.wall_levels >= 0);

// value() and store() come together (the GPU traversal's deferred stores).
template <class F>
concept SplitComplete = !requires(const F& f) {
    f.value(0, 0, 0);
}
|| requires(const F& f) {
    f.store(0, 0, 0, f.value(0, 0, 0));
};

// The planes traversal's tables come as a set (backends/cuda/README.md, "planes").
template <class F>
concept PlanesComplete = !requires {
    F::plane_inputs;
}
|| requires(const F& f) {
    {F::plane_input(0).xlo};
    {F::plane_outputs};
    f.plane_output(0, 0, 0, 0);
    f.value(0, 0, 0);
};

// So do the face form's functions (backends/cpu/cpu_faces.h).
template <class F>
concept FacesComplete = !requires(const F& f) {
    f.flux_x(0, 0, 0);
}
|| requires(const F& f) {
    f.flux_y(0, 0, 0);
    f.flux_z(0, 0, 0, 5);
    f.order_z(0);
    f.from_fluxes(f.flux_x(0, 0, 0), f.flux_x(0, 0, 0), f.flux_x(0, 0, 0), f.flux_x(0, 0, 0),
                  f.flux_x(0, 0, 0), f.flux_x(0, 0, 0), 0, 0, 0);
};

// And the z-carry form (backends/cuda/planes.cuh): ZFaces with its two functions, called
// here with plain pointers for the inputs.
struct PlainInputs {
    template <class P>
    const P* operator()(int, const P* p) const {
        return p;
    }
};
template <class F>
concept CarryComplete = !requires {
    typename F::ZFaces;
}
|| requires(const F& f, const typename F::ZFaces& z) {
    f.z_faces_with(PlainInputs{}, 0, 0, 0, 0);
    f.value_with_z(PlainInputs{}, 0, 0, 0, z, z);
};

} // namespace contract

// What every kernel launched on a backend must be.
template <class F>
concept Kernel = contract::Named<F> && contract::Declared<F> && contract::TraitsStatedOnce<F> &&
    (contract::PointForm<F> ||
     contract::ColumnForm<F>)&&contract::TraitsFit<F>&& contract::SplitComplete<F>&& contract::
        PlanesComplete<F>&& contract::FacesComplete<F>&& contract::CarryComplete<F>;

// sq::Kernel part by part, each failure with its own message (backends/launch.h).
template <class F>
constexpr bool check_kernel() {
    using namespace contract;
    static_assert(Named<F>, "kernel contract: a `static constexpr const char* name`");
    static_assert(Declared<F>, "kernel contract: Declared: declare() lists every member once");
    static_assert(TraitsStatedOnce<F>,
                  "kernel contract: TraitsStatedOnce: traits only in `sq::Traits traits`");
    static_assert(PointForm<F> || ColumnForm<F>,
                  "kernel contract: operator()(i, j, k) or operator()(i, j)");
    static_assert(TraitsFit<F>, "kernel contract: TraitsFit: summed for reductions only, "
                                "wall_levels with kstart and kend, promise_interior with walls");
    static_assert(SplitComplete<F>, "kernel contract: SplitComplete: value() with store()");
    static_assert(PlanesComplete<F>, "kernel contract: PlanesComplete: the planes tables as a set");
    static_assert(FacesComplete<F>, "kernel contract: FacesComplete: the face form as a set");
    static_assert(CarryComplete<F>, "kernel contract: CarryComplete: the z-carry form as a set");
    return Kernel<F>;
}

} // namespace sq

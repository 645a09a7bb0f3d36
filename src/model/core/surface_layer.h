#pragma once
// Monin-Obukhov surface layer: fills the bottom fluxes and wall gradients (see surface.cuh).

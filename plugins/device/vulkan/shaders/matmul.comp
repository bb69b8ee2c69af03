#version 450
// MATMUL and MATMUL_ID of float weights and the QFORMATS_BASE block formats (matmul.glsl).
#define QFORMATS_BASE
#include "matmul.glsl"

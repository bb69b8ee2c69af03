#version 450
// MATMUL and MATMUL_ID of the QFORMATS_EXT block formats (matmul.glsl).
#define QFORMATS_EXT
#include "matmul.glsl"

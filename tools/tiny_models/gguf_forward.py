"""A plain numpy (float64) forward pass read straight from a GGUF file: llama, qwen3,
qwen3moe and gemma3, as llama.cpp defines them.

A second, independent reader of the tiny files (llama.cpp is the first): it shares no code
with the exporter and follows only the GGUF conventions, so its agreement with transformers
shows those conventions are complete. It is also the shortest executable statement of them.
Needs only numpy and gguf.
"""
from __future__ import annotations

import numpy as np

GEMMA3_GLOBAL_EVERY = 6  # llama.cpp: layer il is global when (il + 1) % 6 == 0


class GGUFModel:
    def __init__(self, path):
        import gguf

        reader = gguf.GGUFReader(str(path))
        self.kv = {name: _value(field) for name, field in reader.fields.items()}
        self.arch = self.kv["general.architecture"]
        # GGUFReader shapes are ggml's ne (innermost first); numpy wants them reversed.
        self.t = {t.name: np.asarray(t.data, dtype=np.float64).reshape(t.shape[::-1])
                  for t in reader.tensors}

    def hp(self, key, default=None):
        value = self.kv.get(f"{self.arch}.{key}", default)
        if value is None:
            raise KeyError(f"{self.arch}.{key} missing")
        return value

    def logits(self, ids: list[int]) -> np.ndarray:
        """[n_tokens, n_vocab], every position, causal."""
        n_embd = self.hp("embedding_length")
        x = self.t["token_embd.weight"][ids]
        if self.arch == "gemma3":
            x = x * np.sqrt(n_embd)
        positions = np.arange(len(ids), dtype=np.float64)
        for il in range(self.hp("block_count")):
            x = x + self._attention(il, x, positions)
            x = x + self._feed_forward(il, x)
        x = self._norm(x, "output_norm.weight")
        return x @ self.t.get("output.weight", self.t["token_embd.weight"]).T

    # ---- blocks ------------------------------------------------------------------------------

    def _attention(self, il: int, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        p = f"blk.{il}."
        n = len(x)
        n_head, n_kv = self.hp("attention.head_count"), self.hp("attention.head_count_kv")
        head_dim = self.hp("attention.key_length", self.hp("embedding_length") // n_head)
        h = self._norm(x, p + "attn_norm.weight")
        q = (h @ self.t[p + "attn_q.weight"].T).reshape(n, n_head, head_dim)
        k = (h @ self.t[p + "attn_k.weight"].T).reshape(n, n_kv, head_dim)
        v = (h @ self.t[p + "attn_v.weight"].T).reshape(n, n_kv, head_dim)
        if p + "attn_q_norm.weight" in self.t:  # per-head RMSNorm before RoPE
            q = self._norm(q, p + "attn_q_norm.weight")
            k = self._norm(k, p + "attn_k_norm.weight")
        local = self._is_local(il)
        q, k = self._rope(q, positions, local), self._rope(k, positions, local)

        group = n_head // n_kv  # query head j reads KV head j // group
        k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
        scores = np.einsum("qhd,khd->hqk", q, k) / np.sqrt(head_dim)
        qi, ki = np.arange(n)[:, None], np.arange(n)[None, :]
        hidden = ki > qi
        if local:  # a query sees itself and the window - 1 tokens before it
            hidden |= (qi - ki) >= self.hp("attention.sliding_window")
        scores = np.where(hidden[None], -np.inf, scores)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        weights /= weights.sum(-1, keepdims=True)
        out = np.einsum("hqk,khd->qhd", weights, v).reshape(n, n_head * head_dim)
        out = out @ self.t[p + "attn_output.weight"].T
        if p + "post_attention_norm.weight" in self.t:
            out = self._norm(out, p + "post_attention_norm.weight")
        return out

    def _feed_forward(self, il: int, x: np.ndarray) -> np.ndarray:
        p = f"blk.{il}."
        h = self._norm(x, p + "ffn_norm.weight")
        if p + "ffn_gate_inp.weight" in self.t:
            out = self._experts(p, h)
        else:
            out = self._glu(h, self.t[p + "ffn_gate.weight"], self.t[p + "ffn_up.weight"],
                            self.t[p + "ffn_down.weight"])
        if p + "post_ffw_norm.weight" in self.t:
            out = self._norm(out, p + "post_ffw_norm.weight")
        return out

    def _experts(self, p: str, h: np.ndarray) -> np.ndarray:
        """Softmax router over all experts, top-k, weights renormalized to sum 1 (llama.cpp
        always renormalizes for qwen3moe)."""
        k = self.hp("expert_used_count")
        logits = h @ self.t[p + "ffn_gate_inp.weight"].T
        probs = np.exp(logits - logits.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        out = np.zeros_like(h)
        for row in range(len(h)):
            chosen = np.argsort(-probs[row])[:k]
            weights = probs[row, chosen] / probs[row, chosen].sum()
            for e, w in zip(chosen, weights):
                out[row] += w * self._glu(h[row:row + 1], self.t[p + "ffn_gate_exps.weight"][e],
                                          self.t[p + "ffn_up_exps.weight"][e],
                                          self.t[p + "ffn_down_exps.weight"][e])[0]
        return out

    def _glu(self, h, gate, up, down):
        g = h @ gate.T
        if self.arch == "gemma3":  # GELU, tanh form
            act = 0.5 * g * (1 + np.tanh(np.sqrt(2 / np.pi) * (g + 0.044715 * g ** 3)))
        else:  # SiLU
            act = g / (1 + np.exp(-g))
        return (act * (h @ up.T)) @ down.T

    # ---- pieces ------------------------------------------------------------------------------

    def _norm(self, x: np.ndarray, weight: str) -> np.ndarray:
        eps = self.hp("attention.layer_norm_rms_epsilon")
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * self.t[weight]

    def _is_local(self, il: int) -> bool:
        return (self.arch == "gemma3" and f"{self.arch}.attention.sliding_window" in self.kv
                and (il + 1) % GEMMA3_GLOBAL_EVERY != 0)

    def _rope(self, x: np.ndarray, positions: np.ndarray, local: bool) -> np.ndarray:
        """llama: ggml's "normal" RoPE, pairs (2i, 2i+1), angles divided by rope_freqs.
        qwen3/qwen3moe/gemma3: NEOX, pairs (i, i + d/2). Gemma3 local layers use
        rope.freq_base_swa (10000 when absent)."""
        d = x.shape[-1]
        n_rot = self.kv.get(f"{self.arch}.rope.dimension_count", d)
        base = self.hp("rope.freq_base_swa", 10000.0) if local else self.hp("rope.freq_base")
        inv_freq = base ** (-np.arange(0, n_rot, 2) / n_rot)
        if "rope_freqs.weight" in self.t:
            inv_freq = inv_freq / self.t["rope_freqs.weight"]
        angle = positions[:, None, None] * inv_freq[None, None, :]
        cos, sin = np.cos(angle), np.sin(angle)
        if self.arch == "llama":
            a, b = x[..., 0:n_rot:2], x[..., 1:n_rot:2]
            out = np.empty_like(x)
            out[..., 0:n_rot:2], out[..., 1:n_rot:2] = a * cos - b * sin, a * sin + b * cos
            return out
        a, b = x[..., :n_rot // 2], x[..., n_rot // 2:n_rot]
        return np.concatenate([a * cos - b * sin, a * sin + b * cos, x[..., n_rot:]], -1)


def _value(field):
    import gguf

    kind = field.types[0]
    if kind == gguf.GGUFValueType.ARRAY:
        if field.types[-1] == gguf.GGUFValueType.STRING:
            return [bytes(field.parts[i]).decode("utf-8", "replace") for i in field.data]
        return [field.parts[i][0].item() for i in field.data]
    if kind == gguf.GGUFValueType.STRING:
        return bytes(field.parts[field.data[0]]).decode("utf-8")
    return field.parts[field.data[0]][0].item()

"""all-MiniLM-L6-v2 in plain torch: the sentence-transformers pipeline of the bundled model (its BERT encoder,
mean pooling over the attention mask, L2 normalisation) read from the model's own files (``tokenizer.json``
through the ``tokenizers`` library, ``config.json``, ``sentence_bert_config.json``, ``model.safetensors``),
without importing sentence-transformers or transformers: about 4 s less per process on 2 cores, the same
vectors to float rounding (``tests/test_embed.py`` compares them with sentence-transformers').
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file
from tokenizers import Tokenizer


class SentenceEncoder:
    """A BERT sentence encoder from a sentence-transformers folder (Transformer, mean Pooling, Normalize)."""

    def __init__(self, path: str | Path, device: str = "cpu"):
        path = Path(path)
        config = json.loads((path / "config.json").read_text())
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise ValueError(f"{path}: not a BERT model with GELU ({config.get('model_type')})")
        pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError(f"{path}: not mean pooling")
        max_len = json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"]
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.device = device
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_len)
        self.tokenizer.no_padding()
        self.w = load_file(str(path / "model.safetensors"), device=device)

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return F.layer_norm(x, x.shape[-1:], self.w[f"{name}.weight"], self.w[f"{name}.bias"], self.eps)

    def _dense(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return F.linear(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"])

    def _forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Returns the mean-pooled, L2-normalised last hidden states of a padded batch."""
        w = self.w
        batch, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._norm(x, "embeddings.LayerNorm")
        bias = torch.zeros((batch, 1, 1, length), dtype=x.dtype, device=x.device)
        bias.masked_fill_(mask[:, None, None, :] == 0, torch.finfo(x.dtype).min)
        split = lambda t: t.view(batch, length, self.heads, -1).transpose(1, 2)  # noqa: E731
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q, k, v = (split(self._dense(x, p + f"attention.self.{n}")) for n in ("query", "key", "value"))
            ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=bias).transpose(1, 2).reshape(batch, length, -1)
            x = self._norm(self._dense(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            inner = F.gelu(self._dense(x, p + "intermediate.dense"))
            x = self._norm(self._dense(inner, p + "output.dense") + x, p + "output.LayerNorm")
        m = mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return F.normalize(pooled, p=2, dim=1)

    def encode(self, texts: list[str], batch_size: int = 128) -> np.ndarray:
        """Returns the (len(texts), dim) float32 unit vectors of ``texts``, encoded in batches of at most
        ``batch_size`` texts whose token counts are at least half the batch's longest (padding at most doubles
        the work)."""
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: -len(encodings[i].ids))
        out = np.zeros((len(encodings), self.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        start = 0
        with torch.inference_mode():
            while start < len(order):
                width = len(encodings[order[start]].ids)
                end = start + 1
                while end < len(order) and end - start < batch_size and 2 * len(encodings[order[end]].ids) >= width:
                    end += 1
                part, start = order[start:end], end
                ids = torch.zeros((len(part), width), dtype=torch.long)
                mask = torch.zeros((len(part), width), dtype=torch.long)
                for row, i in enumerate(part):
                    n = len(encodings[i].ids)
                    ids[row, :n] = torch.tensor(encodings[i].ids)
                    mask[row, :n] = 1
                out[part] = self._forward(ids.to(self.device), mask.to(self.device)).float().cpu().numpy()
        return out

"""Real runs of the harnesses on a release folder, offline: what the import tests read is only ever a
file lm-eval or Inspect wrote in the test run (never a shape written by hand).

- lm-eval `multiple_choice` (`--model hf`) on a tiny GPT-2 built here: random weights, a byte-level
  BPE tokenizer trained with `tokenizers` on a few of the release's Persian lines, saved to a folder;
- lm-eval `generate_until` (`--model local-chat-completions --apply_chat_template`) and Inspect
  against the local OpenAI-compatible test server (tests/llm_server.py) on 127.0.0.1.

lm-eval runs as its own command (`python -m lm_eval`, as a researcher runs it) with the hub and
datasets offline and their caches in the output folder. To look at the files by hand:

    python tests/harness_runs.py RELEASE_FOLDER OUT    # writes OUT/mc/... and OUT/gen/...
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from llm_server import LLMServer, chat

NO_LM_EVAL = "lm-eval is not installed (the lmeval extra: pip install -e '.[lmeval]'; .ci/run installs it)"
THINK = "<think>گزینه‌ها را یکی یکی می‌سنجم.</think>"  # Inspect moves it into a reasoning block


def replies(answers: list[str], every: int = 3):
    """A server script: the answers in turn, every `every`-th one after a <think> block."""
    def script(body, n):
        answer = answers[n % len(answers)]
        return chat((THINK + answer) if n % every == 0 else answer, tokens=(120, 7))
    return script


def release_lines(release: Path, questions: int = 4) -> list[str]:
    """A few Persian lines of the release (the tokenizer's training text)."""
    out = []
    for line in (release / "data" / "test.jsonl").read_text("utf-8").splitlines()[:questions]:
        out += [o["mesra1"] + " " + o["mesra2"] for o in json.loads(line)["options"]]
    return out + ["Answer: 1 2 3 4"]


def tiny_gpt2(folder: Path, lines: list[str]) -> Path:
    """A GPT-2 of one layer and 16 dimensions with random (seeded) weights and a tokenizer trained
    on `lines`, saved to `folder` as `from_pretrained` reads it: no download."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>",
                                   unk_token="<|endoftext|>")
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(fast), n_positions=1024, n_embd=16, n_layer=1, n_head=2,
                        bos_token_id=fast.eos_token_id, eos_token_id=fast.eos_token_id)
    GPT2LMHeadModel(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def offline_env(cache: Path) -> dict:
    env = dict(os.environ)
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_HOME=str(cache / "hf"),
               HF_DATASETS_CACHE=str(cache / "datasets"), TOKENIZERS_PARALLELISM="false",
               OPENAI_API_KEY="not-a-real-key", PYTHONIOENCODING="utf-8")
    return env


def lm_eval(args: list[str], out: Path, cwd: Path | None = None) -> tuple[Path, Path]:
    """`python -m lm_eval ARGS --log_samples --output_path OUT`: (the samples file, its results file)."""
    out.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "lm_eval", *args, "--log_samples", "--output_path", str(out)],
                          capture_output=True, text=True, env=offline_env(out), cwd=cwd)
    if done.returncode:
        raise RuntimeError(f"lm_eval failed ({done.returncode}):\n{done.stderr[-4000:]}")
    (samples,) = out.glob("*/samples_*.jsonl")
    (results,) = out.glob("*/results_*.json")
    return samples, results


def lm_eval_mc(release: Path, model: Path, out: Path) -> tuple[Path, Path]:
    """The release's multiple_choice task on a local model (by its tag, persian_outlier_loglik)."""
    return lm_eval(["--model", "hf", "--model_args", f"pretrained={model},dtype=float32", "--device", "cpu",
                    "--batch_size", "4", "--include_path", str(release / "lm_eval"),
                    "--tasks", "persian_outlier_loglik"], out)


def lm_eval_gen(release: Path, url: str, out: Path, model: str = "fake-answerer") -> tuple[Path, Path]:
    """The release's generate_until task against a chat endpoint (by its tag, persian_outlier_chat)."""
    return lm_eval(["--model", "local-chat-completions", "--model_args",
                    f"model={model},base_url={url}/chat/completions,num_concurrent=1,max_retries=1,"
                    "tokenized_requests=False", "--apply_chat_template",
                    "--include_path", str(release / "lm_eval"), "--tasks", "persian_outlier_chat"], out)


def main() -> None:
    release, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    model = tiny_gpt2(out / "tiny-gpt2", release_lines(release))
    print(*lm_eval_mc(release, model, out / "mc"))
    with LLMServer(replies(["3", "Answer: 2", "گزینه ۴", "I cannot decide."])) as server:
        print(*lm_eval_gen(release, server.url, out / "gen"))


if __name__ == "__main__":
    main()

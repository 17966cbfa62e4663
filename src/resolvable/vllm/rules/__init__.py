"""The vLLM pack's rule modules (one per concern); ``resolvable.vllm`` imports them in order."""

"""The LLM-as-judge (UserSimCRS): five rubrics, the prompt and answer reading, the run over a
log folder, and the judge's answers on disk."""

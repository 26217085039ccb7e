"""`evaluator report`: one self-contained HTML page of plots and tables over scored logs."""

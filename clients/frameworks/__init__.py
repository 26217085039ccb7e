"""taurec inside the frameworks people train and evaluate with: Gymnasium, verifiers,
TRL and Inspect AI. Each adapter is a module of its own over clients/envs (or the MCP
server), importing its framework only when used; each framework is an optional extra.
"""

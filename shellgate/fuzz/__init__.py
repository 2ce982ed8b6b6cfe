"""``shellgate fuzz``: find commands the gate auto-allows although they have a side effect.

generators (grammar, seed mutations, policy seeds) -> the gate -> oracle (bwrap + strace in a
throwaway world) -> minimize -> findings. Entry point: :func:`shellgate.fuzz.campaign.main`.
"""

"""What generation costs: the price table (``--codegen-prices``) and a sample's cost.

Prices are USD per million tokens, input and output, per model spec or alias.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def parse_prices(lines: Iterable[str]) -> dict[str, tuple[float, float]]:
    """``MODEL = INPUT OUTPUT`` lines (USD per million tokens) as ``{model: (in, out)}``."""
    table: dict[str, tuple[float, float]] = {}
    for line in lines:
        name, eq, rest = line.partition("=")
        words = rest.split()
        try:
            if not eq or not name.strip() or len(words) != 2:
                raise ValueError
            price_in, price_out = float(words[0]), float(words[1])
            if price_in < 0 or price_out < 0:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"bad price {line!r}: expected 'MODEL = INPUT OUTPUT' in USD per "
                "million tokens, e.g. 'openai:gpt-4o = 2.5 10'"
            ) from None
        table[name.strip()] = (price_in, price_out)
    return table


def price_of(
    prices: Mapping[str, tuple[float, float]], *specs: str | None
) -> tuple[float, float] | None:
    """The price of the first of ``specs`` (alias, PROVIDER:MODEL, ...) the table names."""
    for spec in specs:
        if spec and spec in prices:
            return prices[spec]
    return None


def cost_usd(
    price: tuple[float, float], prompt_tokens: int | None, completion_tokens: int | None
) -> float:
    return ((prompt_tokens or 0) * price[0] + (completion_tokens or 0) * price[1]) / 1e6

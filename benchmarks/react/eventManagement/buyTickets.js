import { useState } from 'react';

export default function BuyTickets() {
  const [quantity, setQuantity] = useState('1');
  const [total, setTotal] = useState(null);
  const [error, setError] = useState('');

  const buy = async () => {
    setError('');
    setTotal(null);
    try {
      const response = await fetch('/api/events/e5/tickets', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ quantity: Number(quantity) }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      setTotal(data.total);
    } catch (err) {
      setError('Ticket purchase failed');
    }
  };

  return (
    <div>
      <label htmlFor="qty">Tickets</label>
      <input
        id="qty"
        type="number"
        min="1"
        max="10"
        data-testid="ticket-quantity"
        value={quantity}
        onChange={(e) => setQuantity(e.target.value)}
      />
      <button onClick={buy}>Buy tickets</button>
      {total !== null && <p>{`Total charged: $${total}`}</p>}
      {error && <p>{error}</p>}
    </div>
  );
}

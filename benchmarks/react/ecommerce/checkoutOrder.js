import { useState } from 'react';

export default function CheckoutOrder() {
  const [orderId, setOrderId] = useState(null);
  const [error, setError] = useState('');

  const placeOrder = async () => {
    setError('');
    try {
      const response = await fetch('/api/orders', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ paymentMethod: 'card' }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      setOrderId(data.orderId);
    } catch (err) {
      setError('Checkout failed');
    }
  };

  return (
    <div>
      <button onClick={placeOrder}>Place order</button>
      {orderId && <p>Order {orderId} confirmed</p>}
      {error && <p className="error">{error}</p>}
    </div>
  );
}

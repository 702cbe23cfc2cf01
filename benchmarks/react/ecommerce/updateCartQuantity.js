import { useEffect, useState } from 'react';

export default function UpdateCartQuantity() {
  const [items, setItems] = useState([]);
  const [quantities, setQuantities] = useState({});
  const [message, setMessage] = useState('');

  useEffect(() => {
    fetch('/api/cart')
      .then((response) => {
        if (!response.ok) throw new Error('cart failed');
        return response.json();
      })
      .then((data) => {
        setItems(data);
        setQuantities(Object.fromEntries(data.map((item) => [item.id, item.quantity])));
      })
      .catch(() => setMessage('Could not load cart'));
  }, []);

  const updateItem = async (id) => {
    try {
      const response = await fetch(`/api/cart/${id}`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ quantity: Number(quantities[id]) }),
      });
      if (!response.ok) throw new Error('update failed');
      setMessage('Cart updated');
    } catch (err) {
      setMessage('Could not update cart');
    }
  };

  return (
    <div>
      {items.map((item) => (
        <div key={item.id}>
          <span>{item.name}</span>
          <input
            type="number"
            min="1"
            data-testid={`quantity-${item.id}`}
            value={quantities[item.id] ?? ''}
            onChange={(e) => setQuantities({ ...quantities, [item.id]: e.target.value })}
          />
          <button data-testid={`update-${item.id}`} onClick={() => updateItem(item.id)}>
            Update
          </button>
        </div>
      ))}
      {message && <p>{message}</p>}
    </div>
  );
}

import { useState } from 'react';

export default function AddItineraryItem() {
  const [place, setPlace] = useState('');
  const [day, setDay] = useState('');
  const [items, setItems] = useState([]);
  const [error, setError] = useState('');

  const addItem = async () => {
    setError('');
    try {
      const response = await fetch('/api/itinerary', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ place, day: Number(day) }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const created = await response.json();
      setItems((current) => [...current, created]);
      setPlace('');
      setDay('');
    } catch (err) {
      setError('Could not add to itinerary');
    }
  };

  return (
    <div>
      <input placeholder="Place" value={place} onChange={(e) => setPlace(e.target.value)} />
      <input type="number" placeholder="Day" value={day} onChange={(e) => setDay(e.target.value)} />
      <button onClick={addItem}>Add to itinerary</button>
      {error && <p>{error}</p>}
      <ol>
        {items.map((item) => (
          <li key={item.id}>{`Day ${item.day}: ${item.place}`}</li>
        ))}
      </ol>
    </div>
  );
}

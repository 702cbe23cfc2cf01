import { useState } from 'react';

export default function SaveFavoriteCity() {
  const [city, setCity] = useState('');
  const [message, setMessage] = useState('');

  const save = async () => {
    try {
      const response = await fetch('/api/favorites', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ city }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setMessage(`${city} added to favorites`);
    } catch (err) {
      setMessage('Could not save favorite');
    }
  };

  return (
    <div>
      <input placeholder="City name" value={city} onChange={(e) => setCity(e.target.value)} />
      <button onClick={save}>Add to favorites</button>
      {message && <p>{message}</p>}
    </div>
  );
}

import { useState } from 'react';

export default function SearchFlights() {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [date, setDate] = useState('');
  const [flights, setFlights] = useState([]);
  const [error, setError] = useState('');

  const search = async () => {
    setError('');
    const params = new URLSearchParams({ from, to, date });
    try {
      const response = await fetch(`/api/flights?${params.toString()}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setFlights(await response.json());
    } catch (err) {
      setFlights([]);
      setError('No flights could be loaded');
    }
  };

  return (
    <div>
      <input placeholder="From" value={from} onChange={(e) => setFrom(e.target.value)} />
      <input placeholder="To" value={to} onChange={(e) => setTo(e.target.value)} />
      <input type="date" data-testid="departure-date" value={date} onChange={(e) => setDate(e.target.value)} />
      <button onClick={search}>Search flights</button>
      {error && <p>{error}</p>}
      <ul>
        {flights.map((flight) => (
          <li key={flight.id}>{`${flight.airline} - $${flight.price}`}</li>
        ))}
      </ul>
    </div>
  );
}

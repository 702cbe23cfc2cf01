import { useState } from 'react';

export default function CurrentConditions() {
  const [city, setCity] = useState('');
  const [weather, setWeather] = useState(null);
  const [error, setError] = useState('');

  const loadWeather = async () => {
    setError('');
    setWeather(null);
    try {
      const response = await fetch(`/api/weather/current?city=${encodeURIComponent(city)}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setWeather(await response.json());
    } catch (err) {
      setError('Unable to fetch weather');
    }
  };

  return (
    <div>
      <input placeholder="Enter city" value={city} onChange={(e) => setCity(e.target.value)} />
      <button onClick={loadWeather}>Get weather</button>
      {weather && (
        <div>
          <span data-testid="temperature">{weather.temperature}°C</span>
          <span>{weather.condition}</span>
        </div>
      )}
      {error && <p>{error}</p>}
    </div>
  );
}

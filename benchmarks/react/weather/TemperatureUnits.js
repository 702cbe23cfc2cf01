import { useEffect, useState } from 'react';

const SYMBOLS = { metric: '°C', imperial: '°F' };

export default function TemperatureUnits() {
  const [units, setUnits] = useState('metric');
  const [temp, setTemp] = useState(null);
  const [error, setError] = useState('');

  const load = async (nextUnits) => {
    const response = await fetch(`/api/weather?units=${nextUnits}`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const data = await response.json();
    setTemp(data.temp);
    setUnits(nextUnits);
  };

  useEffect(() => {
    load('metric').catch(() => setError('Could not load temperature'));
  }, []);

  const toggle = async () => {
    const nextUnits = units === 'metric' ? 'imperial' : 'metric';
    setError('');
    try {
      await load(nextUnits);
    } catch (err) {
      setError('Could not switch units');
    }
  };

  return (
    <div>
      {temp !== null && <p>{`${temp}${SYMBOLS[units]}`}</p>}
      <button onClick={toggle}>
        {units === 'metric' ? 'Switch to Fahrenheit' : 'Switch to Celsius'}
      </button>
      {error && <p>{error}</p>}
    </div>
  );
}
